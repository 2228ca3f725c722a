import type { Queryable } from "../db/pool";

/**
 * Deletes these payments' changes from the feed, on `db` (the caller's transaction); their
 * deliveries and delivery attempts follow by the schema's cascade. Returns how many went and the
 * inbox events they name.
 */
export async function purgeChangesOf(db: Queryable, paymentIds: number[]): Promise<{ changes: number; inboxIds: number[] }> {
  const { rows } = await db.query<{ inbox_id: string | null }>(
    "DELETE FROM payment_changes WHERE payment_id = ANY($1::bigint[]) RETURNING inbox_id",
    [paymentIds],
  );
  return { changes: rows.length, inboxIds: rows.flatMap((row) => (row.inbox_id === null ? [] : [Number(row.inbox_id)])) };
}
