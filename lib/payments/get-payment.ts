import type { DeclineReason } from "../canonical/charge-event";
import type { Queryable } from "../db/pool";
import { declineReasonJsonSql, utcTimeSql, type HostDeclineReason } from "../outbox/payment-change";

export type PaymentRecord = {
  id: number;
  provider: string;
  account: string;
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
  /** Why the gateway refused it, until it succeeded; null when no refusal is known. */
  declineReason: DeclineReason | null;
};

/** The payments columns as PaymentRecord fields, for a table aliased `alias`. */
export function paymentColumns(alias: string): string {
  return `${alias}.id, ${alias}.provider, ${alias}.gateway_account AS account, ${alias}.gateway_charge_id AS "chargeId", ${alias}.status, ${alias}.amount,
          ${alias}.amount_refunded AS "amountRefunded", ${alias}.currency, ${alias}.customer_id AS "customerId",
          ${alias}.customer_email AS "customerEmail", ${alias}.registered_by AS "registeredBy",
          ${alias}.last_gateway_event_at AS "lastGatewayEventAt", ${alias}.updated_at AS "updatedAt",
          ${alias}.decline_reason AS "declineReason"`;
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

/**
 * A payment as the host application reads it (`GET /api/payments/{provider}/{chargeId}`): the names
 * and time format of the change feed, so a feed entry and a lookup of the same version agree field
 * for field. `version` is the last change's (0: none yet, e.g. registered and not yet paid).
 */
export type HostPayment = {
  provider: string;
  account: string;
  chargeId: string;
  version: number;
  status: string;
  amount: number | null;
  amountRefunded: number;
  currency: string | null;
  customer: { id: string | null; email: string | null };
  registeredBy: "host" | "gateway";
  lastGatewayEventAt: string | null;
  updatedAt: string;
  /** Why the gateway refused it, until it succeeded; null when no refusal is known. */
  declineReason: HostDeclineReason | null;
};

const HOST_PAYMENT_JSON = `json_build_object(
  'provider', p.provider, 'account', p.gateway_account, 'chargeId', p.gateway_charge_id, 'version', p.version, 'status', p.status,
  'amount', p.amount, 'amountRefunded', p.amount_refunded, 'currency', p.currency,
  'customer', json_build_object('id', p.customer_id, 'email', p.customer_email),
  'registeredBy', p.registered_by, 'lastGatewayEventAt', ${utcTimeSql("p.last_gateway_event_at")},
  'updatedAt', ${utcTimeSql("p.updated_at")}, 'declineReason', ${declineReasonJsonSql("p.decline_reason")})`;

export async function getHostPayment(db: Queryable, provider: string, chargeId: string): Promise<HostPayment | null> {
  const { rows } = await db.query<{ payment: HostPayment }>(
    `SELECT ${HOST_PAYMENT_JSON} AS payment FROM payments p WHERE p.provider = $1 AND p.gateway_charge_id = $2`,
    [provider, chargeId],
  );
  return rows[0]?.payment ?? null;
}
