export const AUDIT_ACTIONS = [
  "login",
  "login_failed",
  "logout",
  "sso_linked",
  "sso_unlinked",
  "replay",
  "user_created",
  "user_updated",
  "password_reset",
  "password_changed",
  "two_factor_enabled",
  "two_factor_disabled",
  "other_sessions_ended",
  "restore",
  "restore_failed",
  "archive",
  "raw_download",
  "alert",
  "destination_created",
  "destination_updated",
  "destination_secret_rotated",
  "destination_tested",
  "delivery_resent",
  "delivery_retried",
  "destination_paused",
  "destination_resumed",
  "deliveries_recovered",
  "export",
  "reconcile",
  "privacy_export",
  "privacy_erasure",
  "financial_retention",
  "gateway_account_added",
  "gateway_account_updated",
  "gateway_account_rotated",
  "gateway_account_enabled",
  "gateway_account_disabled",
  "gateway_account_removed",
  "gateway_accounts_resealed",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditEntry = { actor: string; action: AuditAction; ip?: string | null; details?: Record<string, unknown> };

/** Who acts, from where: a console user (their id and address) or a CLI user (a name alone). */
export type Actor = { name: string; ip?: string | null; userId?: number };

export function asActor(actor: string | Actor): Actor {
  return typeof actor === "string" ? { name: actor } : actor;
}

/**
 * Where a statement runs: the pg pool, a client inside a transaction, or a Prisma transaction (the
 * users' changes, through lib/db/prisma's sqlOn), so the entry commits with what it records.
 */
export type SqlRunner = { query(text: string, values: unknown[]): Promise<unknown> };

/** Appends one row to the audit log (who did what, when, from where), sizes bounded. */
export async function recordAudit(db: SqlRunner, entry: AuditEntry): Promise<void> {
  await db.query("INSERT INTO audit_log (actor, action, ip, details) VALUES ($1, $2, $3, $4::jsonb)", [
    entry.actor.slice(0, 320),
    entry.action,
    entry.ip?.slice(0, 64) ?? null,
    JSON.stringify(entry.details ?? {}),
  ]);
}
