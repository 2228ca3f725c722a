import type { Queryable } from "../db/pool";
import { redactText } from "../providers/personal-data";

/**
 * What a host answered to the pushes of these payments' changes (the first KiB of each answer, its
 * error) may quote the customer: each identifier there becomes REDACTED. The answers' headers are
 * dropped (a person reads them only during an incident). The pushed bodies are not stored; they are
 * built from the changes, which the outbox redacts. Returns the attempts changed.
 */
export async function redactDeliveryAttempts(
  db: Queryable,
  paymentIds: readonly number[],
  identifiers: readonly string[],
): Promise<number> {
  if (paymentIds.length === 0 || identifiers.length === 0) return 0;
  await db.query(
    `UPDATE delivery_attempts a SET response_headers = NULL
       FROM deliveries d WHERE d.id = a.delivery_id AND d.payment_id = ANY($1::bigint[]) AND a.response_headers IS NOT NULL`,
    [paymentIds],
  );
  const { rows } = await db.query<{ id: number; excerpt: string | null; error: string | null }>(
    `SELECT a.id, a.response_excerpt AS excerpt, a.error
       FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
      WHERE d.payment_id = ANY($1::bigint[]) AND (a.response_excerpt IS NOT NULL OR a.error IS NOT NULL)`,
    [paymentIds],
  );
  let changed = 0;
  for (const row of rows) {
    const excerpt = row.excerpt === null ? { text: null, changed: 0 } : redactText(row.excerpt, identifiers);
    const error = row.error === null ? { text: null, changed: 0 } : redactText(row.error, identifiers);
    if (excerpt.changed + error.changed === 0) continue;
    await db.query("UPDATE delivery_attempts SET response_excerpt = $2, error = $3 WHERE id = $1", [row.id, excerpt.text, error.text]);
    changed += 1;
  }
  return changed;
}
