import type { Queryable } from "../db/pool";
import { paymentColumns, type PaymentView } from "./get-payment";

export type CustomerTotal = { currency: string | null; payments: number; amount: number; refunded: number; byStatus: Record<string, number> };

export type CustomerSummary = {
  /** The e-mail or customer id the page is about. */
  reference: string;
  emails: string[];
  customerIds: string[];
  payments: PaymentView[];
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
    db.query<PaymentView>(`SELECT ${paymentColumns("p")} FROM payments p WHERE ${where} ORDER BY p.updated_at DESC, p.id DESC LIMIT $2`, [
      reference,
      limit,
    ]),
    db.query<{ currency: string | null; status: string; payments: number; amount: string; refunded: string; emails: string[]; ids: string[] }>(
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
  const byCurrency = new Map<string | null, CustomerTotal>();
  for (const row of totals.rows) {
    const total = byCurrency.get(row.currency) ?? { currency: row.currency, payments: 0, amount: 0, refunded: 0, byStatus: {} };
    total.payments += row.payments;
    total.amount += Number(row.amount);
    total.refunded += Number(row.refunded);
    total.byStatus[row.status] = row.payments;
    byCurrency.set(row.currency, total);
  }
  return {
    reference,
    emails: [...new Set(totals.rows.flatMap((row) => row.emails))],
    customerIds: [...new Set(totals.rows.flatMap((row) => row.ids))],
    payments: list.rows,
    totals: [...byCurrency.values()],
  };
}

/**
 * The customer e-mail each payment knows, for events that name none themselves (a dispute or
 * refund notice often carries only the charge). Keyed by "provider/chargeId".
 */
export async function paymentEmails(db: Queryable, charges: { provider: string; chargeId: string }[]): Promise<Map<string, string>> {
  if (charges.length === 0) return new Map();
  const { rows } = await db.query<{ provider: string; chargeId: string; email: string }>(
    `SELECT p.provider, p.gateway_charge_id AS "chargeId", p.customer_email AS email
       FROM payments p
       JOIN unnest($1::text[], $2::text[]) AS wanted(provider, charge_id)
         ON p.provider = wanted.provider AND p.gateway_charge_id = wanted.charge_id
      WHERE p.customer_email IS NOT NULL`,
    [charges.map((charge) => charge.provider), charges.map((charge) => charge.chargeId)],
  );
  return new Map(rows.map((row) => [`${row.provider}/${row.chargeId}`, row.email]));
}
