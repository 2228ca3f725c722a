import type { Queryable } from "../db/pool";
import { identifierRegexSource, redactPayload, redactText } from "../providers/personal-data";

export type DeliveryRedaction = { deliveries: number; delivery_attempts: number };

/**
 * What was stored of the pushes of these payments' changes may quote the customer: the first KiB a
 * host answered and the error of each attempt, the headers sent, and each delivery's last error.
 * Each identifier there becomes REDACTED; the answers' headers are dropped (a host's answer may
 * carry anything, a cookie naming its customer; a person reads them only during an incident). The
 * pushed bodies are not stored: they are built from the changes, which the outbox redacts. With
 * `dryRun`, counts what would change. Returns the rows changed per table (none the second time).
 */
export async function redactDeliveryAttempts(
  db: Queryable,
  paymentIds: readonly number[],
  identifiers: readonly string[],
  dryRun = false,
): Promise<DeliveryRedaction> {
  const pattern = identifierRegexSource(identifiers);
  if (paymentIds.length === 0 || pattern === null) return { deliveries: 0, delivery_attempts: 0 };
  const { rows: attempts } = await db.query<{
    id: number;
    excerpt: string | null;
    error: string | null;
    requestHeaders: Record<string, string> | null;
  }>(
    `SELECT a.id, a.response_excerpt AS excerpt, a.error, a.request_headers AS "requestHeaders"
       FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
      WHERE d.payment_id = ANY($1::bigint[])
        AND (a.response_headers IS NOT NULL OR a.response_excerpt ~* $2 OR a.error ~* $2 OR a.request_headers::text ~* $2)
      ORDER BY a.id`,
    [paymentIds, pattern],
  );
  const { rows: deliveries } = await db.query<{ id: number; lastError: string }>(
    `SELECT id, last_error AS "lastError" FROM deliveries WHERE payment_id = ANY($1::bigint[]) AND last_error ~* $2 ORDER BY id`,
    [paymentIds, pattern],
  );
  if (dryRun) return { deliveries: deliveries.length, delivery_attempts: attempts.length };
  const redacted = (text: string | null) => (text === null ? null : redactText(text, identifiers).text);
  for (const attempt of attempts) {
    await db.query(
      "UPDATE delivery_attempts SET response_excerpt = $2, error = $3, request_headers = $4::jsonb, response_headers = NULL WHERE id = $1",
      [
        attempt.id,
        redacted(attempt.excerpt),
        redacted(attempt.error),
        attempt.requestHeaders === null ? null : JSON.stringify(redactPayload(attempt.requestHeaders, { paths: [], identifiers }).value),
      ],
    );
  }
  for (const delivery of deliveries) {
    await db.query("UPDATE deliveries SET last_error = $2 WHERE id = $1", [delivery.id, redacted(delivery.lastError)]);
  }
  return { deliveries: deliveries.length, delivery_attempts: attempts.length };
}
