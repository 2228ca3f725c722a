import type { Prisma } from "../db/generated/client.ts";
import type { Queryable } from "../db/pool";

export const AUDIT_ACTIONS = ["login", "login_failed", "logout", "replay", "user_created", "user_updated", "password_reset", "restore", "alert", "reconcile"] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditEntry = { actor: string; action: AuditAction; ip?: string | null; details?: Record<string, unknown> };

/** An audit entry as stored (bounded sizes, JSON details); also Prisma's create input, for transactions. */
export function auditRow(entry: AuditEntry): Prisma.AuditLogCreateInput & { details: Prisma.InputJsonObject } {
  return {
    actor: entry.actor.slice(0, 320),
    action: entry.action,
    ip: entry.ip?.slice(0, 64) ?? null,
    details: JSON.parse(JSON.stringify(entry.details ?? {})) as Prisma.InputJsonObject,
  };
}

/** Appends one row to the audit log (who did what, when, from where). */
export async function recordAudit(db: Queryable, entry: AuditEntry): Promise<void> {
  const row = auditRow(entry);
  await db.query("INSERT INTO audit_log (actor, action, ip, details) VALUES ($1, $2, $3, $4::jsonb)", [
    row.actor,
    row.action,
    row.ip,
    JSON.stringify(row.details),
  ]);
}
