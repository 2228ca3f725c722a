import type { Queryable } from "../db/pool";
import { paymentColumns, type PaymentRecord } from "./get-payment";
import { totalsByCurrency, type PaymentTotal, type TotalsRow } from "./search-payments";

export type CustomerTotal = PaymentTotal;

export type CustomerSummary = {
  /** The e-mail or customer id the page is about. */
  reference: string;
  emails: string[];
  customerIds: string[];
  payments: PaymentRecord[];
  /** Per currency (amounts in minor units can't be added across currencies). */
  totals: CustomerTotal[];
};

/** The customer's condition over payments aliased `p`: by e-mail (any case) or by customer id. */
export function customerPaymentsSql(reference: string, placeholder: string): string {
  return reference.includes("@") ? `p.customer_email = lower(${placeholder})` : `p.customer_id = ${placeholder}`;
}

/**
 * Everything we hold about one customer's payments: each payment (newest first, up to `limit`) and
 * totals per currency over all of them. Null when no payment names the customer.
 */
export async function customerSummary(db: Queryable, reference: string, limit = 500): Promise<CustomerSummary | null> {
  const where = customerPaymentsSql(reference, "$1");
  const [list, totals] = await Promise.all([
    db.query<PaymentRecord>(`SELECT ${paymentColumns("p")} FROM payments p WHERE ${where} ORDER BY p.updated_at DESC, p.id DESC LIMIT $2`, [
      reference,
      limit,
    ]),
    db.query<TotalsRow & { emails: string[]; ids: string[] }>(
      `SELECT p.currency, p.status, count(*)::int AS payments, COALESCE(sum(p.amount), 0)::text AS amount,
              COALESCE(sum(p.amount_refunded), 0)::text AS refunded,
              array_remove(array_agg(DISTINCT p.customer_email), NULL) AS emails,
              array_remove(array_agg(DISTINCT p.customer_id), NULL) AS ids
         FROM payments p WHERE ${where}
        GROUP BY p.currency, p.status
        ORDER BY p.currency NULLS LAST, p.status`,
      [reference],
    ),
  ]);
  if (totals.rows.length === 0) return null;
  return {
    reference,
    emails: [...new Set(totals.rows.flatMap((row) => row.emails))],
    customerIds: [...new Set(totals.rows.flatMap((row) => row.ids))],
    payments: list.rows,
    totals: totalsByCurrency(totals.rows),
  };
}

/** The payments of these charges (id and e-mail), keyed `provider/chargeId`; charges with no payment are absent. */
export async function paymentsOfCharges(
  db: Queryable,
  charges: { provider: string; chargeId: string }[],
): Promise<Map<string, { id: number; email: string | null }>> {
  if (charges.length === 0) return new Map();
  const { rows } = await db.query<{ provider: string; chargeId: string; id: number; email: string | null }>(
    `SELECT p.provider, p.gateway_charge_id AS "chargeId", p.id, p.customer_email AS email
       FROM payments p
       JOIN unnest($1::text[], $2::text[]) AS wanted(provider, charge_id)
         ON p.provider = wanted.provider AND p.gateway_charge_id = wanted.charge_id`,
    [charges.map((charge) => charge.provider), charges.map((charge) => charge.chargeId)],
  );
  return new Map(rows.map((row) => [`${row.provider}/${row.chargeId}`, { id: row.id, email: row.email }]));
}
