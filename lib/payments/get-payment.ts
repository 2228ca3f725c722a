import type { Queryable } from "../db/pool";

export type PaymentView = {
  provider: string;
  chargeId: string;
  status: string;
  amount: number | null;
  amountRefunded: number;
  currency: string | null;
  customerId: string | null;
  customerEmail: string | null;
  registeredBy: string;
  lastGatewayEventAt: Date | null;
  updatedAt: Date;
};

export async function getPayment(db: Queryable, provider: string, chargeId: string): Promise<PaymentView | null> {
  const { rows } = await db.query<PaymentView>(
    `SELECT provider, gateway_charge_id AS "chargeId", status, amount, amount_refunded AS "amountRefunded", currency,
            customer_id AS "customerId", customer_email AS "customerEmail", registered_by AS "registeredBy",
            last_gateway_event_at AS "lastGatewayEventAt", updated_at AS "updatedAt"
       FROM payments WHERE provider = $1 AND gateway_charge_id = $2`,
    [provider, chargeId],
  );
  return rows[0] ?? null;
}
