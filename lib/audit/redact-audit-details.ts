import type { Queryable } from "../db/pool";
import { identifierRegexSource, redactPayload } from "../providers/personal-data";

/**
 * A data subject's erasure, as the audit log sees it: an entry whose details name one of their
 * identifiers (a replay or a CSV export filtered by their e-mail, a search for their customer id)
 * keeps who did what, when and from where; the identifier in it becomes REDACTED. Returns how many
 * entries changed (none the second time).
 */
export async function redactAuditDetails(db: Queryable, identifiers: readonly string[]): Promise<number> {
  const pattern = identifierRegexSource(identifiers);
  if (pattern === null) return 0;
  const { rows } = await db.query<{ id: number; details: unknown }>(
    "SELECT id, details FROM audit_log WHERE details::text ~* $1 ORDER BY id FOR UPDATE",
    [pattern],
  );
  let changed = 0;
  for (const row of rows) {
    const redacted = redactPayload(row.details, { paths: [], identifiers });
    if (redacted.changed === 0) continue;
    await db.query("UPDATE audit_log SET details = $2::jsonb WHERE id = $1", [row.id, JSON.stringify(redacted.value)]);
    changed += 1;
  }
  return changed;
}

/** How many audit entries name one of the identifiers now (what an erasure's dry run shows). */
export async function countAuditNaming(db: Queryable, identifiers: readonly string[]): Promise<number> {
  const pattern = identifierRegexSource(identifiers);
  if (pattern === null) return 0;
  const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM audit_log WHERE details::text ~* $1", [pattern]);
  return rows[0]!.n;
}
