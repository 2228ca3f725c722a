import type { Queryable } from "../db/pool";
import { redactText } from "../providers/personal-data";
import type { AttemptHeaders } from "./attempt-headers";

/**
 * What a host answered to the pushes of these payments' changes (the first KiB of each answer, its
 * headers, its error) may quote the customer: each identifier there becomes REDACTED. The pushed
 * bodies are not stored; they are built from the changes, which the outbox redacts, and the request
 * headers we sent name no customer. Returns the attempts changed.
 */
export async function redactDeliveryAttempts(
  db: Queryable,
  paymentIds: readonly number[],
  identifiers: readonly string[],
): Promise<number> {
  if (paymentIds.length === 0 || identifiers.length === 0) return 0;
  const { rows } = await db.query<{ id: number; excerpt: string | null; error: string | null; headers: AttemptHeaders | null }>(
    `SELECT a.id, a.response_excerpt AS excerpt, a.error, a.response_headers AS headers
       FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
      WHERE d.payment_id = ANY($1::bigint[]) AND (a.response_excerpt IS NOT NULL OR a.error IS NOT NULL OR a.response_headers IS NOT NULL)`,
    [paymentIds],
  );
  const redact = (text: string | null) => (text === null ? { text: null, changed: 0 } : redactText(text, identifiers));
  let changed = 0;
  for (const row of rows) {
    const excerpt = redact(row.excerpt);
    const error = redact(row.error);
    const headers = Object.entries(row.headers ?? {}).map(([name, value]) => [name, redact(value)] as const);
    if (excerpt.changed + error.changed + headers.reduce((sum, [, value]) => sum + value.changed, 0) === 0) continue;
    await db.query("UPDATE delivery_attempts SET response_excerpt = $2, error = $3, response_headers = $4::jsonb WHERE id = $1", [
      row.id,
      excerpt.text,
      error.text,
      row.headers === null ? null : JSON.stringify(Object.fromEntries(headers.map(([name, value]) => [name, value.text]))),
    ]);
    changed += 1;
  }
  return changed;
}
