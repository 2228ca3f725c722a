import type { Queryable } from "../db/pool";
import { listPaymentChanges, type PaymentChangeRow } from "../destinations/list-deliveries";

export type PaymentChangesView = { changes: PaymentChangeRow[] };

/**
 * A payment's changes and each one's delivery to each destination. Read where they are written
 * (the primary, not the replica the rest of the page may read): the page's actions change them.
 */
export async function getPaymentChangesView(db: Queryable, paymentId: number): Promise<PaymentChangesView> {
  return { changes: await listPaymentChanges(db, paymentId) };
}
