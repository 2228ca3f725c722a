import type { Queryable } from "../db/pool";

export const AUDIT_ACTIONS = ["login", "login_failed", "logout", "replay", "user_created", "user_updated", "settings_changed"] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditEntry = { actor: string; action: AuditAction; ip?: string | null; details?: Record<string, unknown> };

/** Appends one row to the audit log (who did what, when, from where). */
export async function recordAudit(db: Queryable, entry: AuditEntry): Promise<void> {
  await db.query("INSERT INTO audit_log (actor, action, ip, details) VALUES ($1, $2, $3, $4::jsonb)", [
    entry.actor.slice(0, 320),
    entry.action,
    entry.ip?.slice(0, 64) ?? null,
    JSON.stringify(entry.details ?? {}),
  ]);
}
