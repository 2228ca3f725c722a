import type { Queryable } from "../db/pool";

export type AuditRow = { id: number; at: Date; actor: string; action: string; ip: string | null; details: unknown };

/** The audit log newest first, keyset-paginated by id (`before` = the last id of the previous page). */
export async function listAudit(
  db: Queryable,
  options: { before?: number; action?: string; limit?: number } = {},
): Promise<{ rows: AuditRow[]; nextBefore: number | null }> {
  const limit = Math.min(options.limit ?? 100, 500);
  const { rows } = await db.query<AuditRow>(
    `SELECT id, at, actor, action, ip, details FROM audit_log
      WHERE ($1::bigint IS NULL OR id < $1) AND ($2::text IS NULL OR action = $2)
      ORDER BY id DESC LIMIT $3`,
    [options.before ?? null, options.action ?? null, limit + 1],
  );
  const page = rows.slice(0, limit);
  return { rows: page, nextBefore: rows.length > limit ? page.at(-1)!.id : null };
}
