import type { Queryable } from "../db/pool";
import { CHANGE_JSON, changeIdSql, type PaymentChange } from "../outbox/payment-change";
import type { AttemptHeaders } from "./attempt-headers";
import { messageBody } from "./deliver-changes";
import { pageOf, type Page, type Paging } from "./page-of";

/** One POST to a destination, as its row in the attempts table shows it. */
export type AttemptRow = {
  id: number;
  deliveryId: number;
  changeId: string;
  version: number;
  provider: string;
  chargeId: string;
  paymentId: number;
  attemptedAt: Date;
  outcome: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
};

/** One attempt in full: what was sent (headers, and the body rebuilt from its change) and what came back. */
export type AttemptDetail = AttemptRow & {
  /** Null on attempts recorded before the headers were kept. */
  requestHeaders: AttemptHeaders | null;
  requestBody: string;
  responseHeaders: AttemptHeaders | null;
  /** The answer's first KiB. */
  responseExcerpt: string | null;
};

const COLUMNS = `a.id, a.delivery_id AS "deliveryId", ${changeIdSql("c")} AS "changeId", c.version, c.provider, c.gateway_charge_id AS "chargeId",
                 c.payment_id AS "paymentId", a.attempted_at AS "attemptedAt", a.outcome, a.status_code AS "statusCode",
                 a.latency_ms AS "latencyMs", a.error`;
const FROM = `delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id JOIN payment_changes c ON c.id = d.change_id`;

/** A page of a destination's attempts, newest first (one delivery's, when given), with their total. */
export async function listAttempts(
  db: Queryable,
  destinationId: number,
  filter: { deliveryId?: number },
  paging: Paging,
): Promise<Page<AttemptRow>> {
  const where = `a.destination_id = $1 AND ($2::bigint IS NULL OR a.delivery_id = $2)`;
  return pageOf(db, paging, {
    rows: `SELECT ${COLUMNS} FROM ${FROM} WHERE ${where} ORDER BY a.id DESC`,
    count: `SELECT 1 FROM delivery_attempts a WHERE ${where}`,
    params: [destinationId, filter.deliveryId ?? null],
  });
}

/**
 * One of a destination's attempts for the inspector; null when it is not this destination's. The
 * body is the change's message as it is now: the same bytes that were sent, unless an erasure has
 * redacted the change since (then the redacted body, which is all that is left).
 */
export async function getAttempt(db: Queryable, destinationId: number, attemptId: number): Promise<AttemptDetail | null> {
  const { rows } = await db.query<Omit<AttemptDetail, "requestBody"> & { change: PaymentChange }>(
    `SELECT ${COLUMNS}, a.request_headers AS "requestHeaders", a.response_headers AS "responseHeaders",
            a.response_excerpt AS "responseExcerpt", ${CHANGE_JSON} AS change
       FROM ${FROM} WHERE a.id = $2 AND a.destination_id = $1`,
    [destinationId, attemptId],
  );
  const row = rows[0];
  if (!row) return null;
  const { change, ...attempt } = row;
  return { ...attempt, requestBody: messageBody(change) };
}
