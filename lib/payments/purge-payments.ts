import type { Queryable } from "../db/pool";

export type PurgedPayments = {
  /** The payments deleted, with what finds their inbox events. */
  payments: { id: number; provider: string; chargeId: string }[];
  transitions: number;
  /** The inbox events their transitions name. */
  inboxIds: number[];
};

/**
 * Locks the next `limit` payments after id `afterId` that nothing has changed since `before`. By
 * primary key, not by updated_at: an index on updated_at would cost every payment update its HOT
 * update, and a whole run is one pass over the table anyway. Rows another transaction holds wait
 * for the next run.
 */
export async function lockPaymentsUpdatedBefore(db: Queryable, before: Date, afterId: number, limit: number): Promise<number[]> {
  const { rows } = await db.query<{ id: string }>(
    "SELECT id FROM payments WHERE id > $2 AND updated_at < $1 ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED",
    [before, afterId, limit],
  );
  return rows.map((row) => Number(row.id));
}

/**
 * Deletes these payments and their status history, on `db` (the caller's transaction, which
 * locked them). Their changes are the outbox's to delete, first: they reference the payments.
 */
export async function purgePayments(db: Queryable, paymentIds: number[]): Promise<PurgedPayments> {
  const { rows: transitions } = await db.query<{ inbox_id: string | null }>(
    "DELETE FROM payment_transitions WHERE payment_id = ANY($1::bigint[]) RETURNING inbox_id",
    [paymentIds],
  );
  const { rows } = await db.query<{ id: string; provider: string; gateway_charge_id: string }>(
    "DELETE FROM payments WHERE id = ANY($1::bigint[]) RETURNING id, provider, gateway_charge_id",
    [paymentIds],
  );
  return {
    payments: rows.map((row) => ({ id: Number(row.id), provider: row.provider, chargeId: row.gateway_charge_id })),
    transitions: transitions.length,
    inboxIds: transitions.flatMap((row) => (row.inbox_id === null ? [] : [Number(row.inbox_id)])),
  };
}
