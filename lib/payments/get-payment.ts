import type { Queryable } from "../db/pool";

export type PaymentRecord = {
  id: number;
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

/** The payments columns as PaymentRecord fields, for a table aliased `alias`. */
export function paymentColumns(alias: string): string {
  return `${alias}.id, ${alias}.provider, ${alias}.gateway_charge_id AS "chargeId", ${alias}.status, ${alias}.amount,
          ${alias}.amount_refunded AS "amountRefunded", ${alias}.currency, ${alias}.customer_id AS "customerId",
          ${alias}.customer_email AS "customerEmail", ${alias}.registered_by AS "registeredBy",
          ${alias}.last_gateway_event_at AS "lastGatewayEventAt", ${alias}.updated_at AS "updatedAt"`;
}

export async function getPayment(db: Queryable, provider: string, chargeId: string): Promise<PaymentRecord | null> {
  const { rows } = await db.query<PaymentRecord>(
    `SELECT ${paymentColumns("p")} FROM payments p WHERE p.provider = $1 AND p.gateway_charge_id = $2`,
    [provider, chargeId],
  );
  return rows[0] ?? null;
}

export async function getPaymentById(db: Queryable, id: number): Promise<PaymentRecord | null> {
  const { rows } = await db.query<PaymentRecord>(`SELECT ${paymentColumns("p")} FROM payments p WHERE p.id = $1`, [id]);
  return rows[0] ?? null;
}
