import { preparedStatement, type Queryable } from "../db/pool";
import type { ChargeSnapshot } from "../canonical/charge-event";
import { decide, type CurrentPayment, type Decision, type EventTime, type IgnoredReason, type PaymentState } from "./state-machine";

/** The payment must be registered by the host application first; the event waits and retries. */
export class UnknownPaymentError extends Error {
  override name = "UnknownPaymentError";
  constructor(provider: string, chargeId: string) {
    super(`payment ${provider}/${chargeId} is not registered yet (PAYMENT_SOURCE is "host")`);
  }
}

export type ChargeUpdate = {
  provider: string;
  chargeId: string;
  snapshot: ChargeSnapshot;
  /** When the gateway observed this state; null when unknown (then only the state machine orders). */
  at: EventTime | null;
  inboxId: number;
  source: "event" | "refetch";
  /** Gateway-sourced payments are created from their first event; host-sourced ones must exist. */
  createIfMissing: boolean;
};

/**
 * What one observation does to a payment (null: not known yet), decided without touching the
 * database: the worker applies this decision, and the replay preview shows it as a dry run.
 */
export function decideChargeUpdate(current: CurrentPayment | null, snapshot: ChargeSnapshot, at: EventTime | null): Decision {
  if (!current) return { action: "create", state: initialState(snapshot) };
  return decide(current, { state: { status: snapshot.status, amountRefunded: snapshot.amountRefunded ?? current.amountRefunded }, at, summary: snapshot.summary });
}

/** A payment created from its first observation. */
function initialState(snapshot: ChargeSnapshot): PaymentState {
  return { status: snapshot.status, amountRefunded: snapshot.amountRefunded ?? 0 };
}

export type ApplyResult = { outcome: "processed"; alreadyApplied?: boolean } | { outcome: "ignored"; reason: IgnoredReason };

type PaymentRow = {
  id: number;
  status: PaymentState["status"];
  amount_refunded: number;
  last_micros: string | null;
  last_gateway_event_precision: EventTime["precision"] | null;
  applied: boolean;
};

export function microsToIso(micros: bigint): string {
  const seconds = micros / 1_000_000n;
  const fraction = (micros % 1_000_000n).toString().padStart(6, "0");
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${fraction}Z`;
}

// The payment row, locked until the transaction ends: every event of one payment waits here for the
// one before it, whichever worker runs it. The time is read as exact microseconds (a JS Date would
// round it to milliseconds).
// It also says whether this event's effect is already in the ledger (a replay): an effect is always
// recorded against its own payment, so no payment row means no effect yet. One round trip for both.
const LOCK_PAYMENT = preparedStatement("lock_payment", `
  SELECT id, status, amount_refunded, last_gateway_event_precision,
         (extract(epoch FROM last_gateway_event_at) * 1000000)::bigint::text AS last_micros,
         EXISTS (SELECT 1 FROM payment_transitions WHERE inbox_id = $3) AS applied
    FROM payments
   WHERE provider = $1 AND gateway_charge_id = $2
   FOR UPDATE`);

// The payment and its first ledger entry in one round trip; no row when another transaction
// created the payment first.
const CREATE_PAYMENT = preparedStatement("create_payment", `
  WITH created AS (
    INSERT INTO payments (provider, gateway_charge_id, status, amount, amount_refunded, currency,
                          customer_id, customer_email, registered_by, last_gateway_event_at, last_gateway_event_precision)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'gateway', $9::timestamptz, $10)
    ON CONFLICT (provider, gateway_charge_id) DO NOTHING
    RETURNING id, status, amount_refunded
  ), recorded AS (
    INSERT INTO payment_transitions (payment_id, inbox_id, from_status, to_status, from_amount_refunded, to_amount_refunded, source)
    SELECT id, $11, NULL, status, NULL, amount_refunded, $12 FROM created
  )
  SELECT id FROM created`);

// The new state and its ledger entry, in one round trip. Facts a later event may add (amount,
// currency, customer) fill gaps but never overwrite.
const UPDATE_PAYMENT = preparedStatement("update_payment", `
  WITH updated AS (
    UPDATE payments
       SET status = $2, amount_refunded = $3,
           amount = COALESCE(amount, $4), currency = COALESCE(currency, $5),
           customer_id = COALESCE(customer_id, $6), customer_email = COALESCE(customer_email, $7),
           last_gateway_event_at = COALESCE(GREATEST(last_gateway_event_at, $8::timestamptz), last_gateway_event_at, $8::timestamptz),
           last_gateway_event_precision = CASE WHEN $8::timestamptz IS NOT NULL
                AND ($8::timestamptz >= last_gateway_event_at OR last_gateway_event_at IS NULL)
                THEN $9 ELSE last_gateway_event_precision END,
           updated_at = now()
     WHERE id = $1
    RETURNING id
  )
  INSERT INTO payment_transitions (payment_id, inbox_id, from_status, to_status, from_amount_refunded, to_amount_refunded, source)
  SELECT id, $10, $11, $2, $12, $3, $13 FROM updated`);

/**
 * Applies one observation of a charge to its payment inside the caller's transaction: locks the
 * payment row, decides with the state machine and occurred_at, writes the new state and records the
 * effect in the ledger (unique per inbox event, so an effect can never be applied twice).
 */
export async function applyChargeUpdate(tx: Queryable, update: ChargeUpdate): Promise<ApplyResult> {
  const snapshot = { ...update.snapshot, customerEmail: update.snapshot.customerEmail?.toLowerCase() };
  const atIso = update.at ? microsToIso(update.at.micros) : null;
  const atPrecision = update.at?.precision ?? null;

  let row = (await tx.query<PaymentRow>(LOCK_PAYMENT([update.provider, update.chargeId, update.inboxId]))).rows[0];
  if (row?.applied) return { outcome: "processed", alreadyApplied: true };
  if (!row) {
    if (!update.createIfMissing) throw new UnknownPaymentError(update.provider, update.chargeId);
    const state = initialState(snapshot);
    const created = await tx.query<{ id: number }>(CREATE_PAYMENT([
      update.provider,
      update.chargeId,
      state.status,
      snapshot.amount ?? null,
      state.amountRefunded,
      snapshot.currency ?? null,
      snapshot.customerId ?? null,
      snapshot.customerEmail ?? null,
      atIso,
      atPrecision,
      update.inboxId,
      update.source,
    ]));
    if (created.rows[0]) return { outcome: "processed" };
    // Another transaction created it between our read and insert: decide against its row.
    row = (await tx.query<PaymentRow>(LOCK_PAYMENT([update.provider, update.chargeId, update.inboxId]))).rows[0]!;
  }

  const current: CurrentPayment = {
    status: row.status,
    amountRefunded: row.amount_refunded,
    lastEventAt:
      row.last_micros !== null && row.last_gateway_event_precision
        ? { micros: BigInt(row.last_micros), precision: row.last_gateway_event_precision }
        : null,
  };
  const decision = decideChargeUpdate(current, snapshot, update.at);
  if (decision.action === "ignore") {
    // The same state seen again, later, still tells us it held at that later time: anything older
    // that arrives afterwards is stale. (A dispute won before its "opened" arrives: the late
    // "opened" must not reopen it.)
    if (decision.reason === "duplicate_in_meaning" && atIso) {
      await tx.query(
        `UPDATE payments SET last_gateway_event_at = $2::timestamptz, last_gateway_event_precision = $3
          WHERE id = $1 AND (last_gateway_event_at IS NULL OR last_gateway_event_at < $2::timestamptz)`,
        [row.id, atIso, atPrecision],
      );
    }
    return { outcome: "ignored", reason: decision.reason };
  }

  await tx.query(UPDATE_PAYMENT([
    row.id,
    decision.state.status,
    decision.state.amountRefunded,
    snapshot.amount ?? null,
    snapshot.currency ?? null,
    snapshot.customerId ?? null,
    snapshot.customerEmail ?? null,
    atIso,
    atPrecision,
    update.inboxId,
    current.status,
    current.amountRefunded,
    update.source,
  ]));
  return { outcome: "processed" };
}
