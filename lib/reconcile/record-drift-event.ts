import type { AppConfig } from "../config/env";
import type { Pool, Queryable } from "../db/pool";
import type { PgBoss } from "pg-boss";
import type { ChargeSnapshot, ChargeStatus } from "../canonical/charge-event";
import { observedChargeType, type ObservedCharge } from "../canonical/observed-charge";
import { jsonbText } from "../inbox/ingest/normalize-event";
import { storeEvent } from "../inbox/ingest/store-event";
import { byWhatTheMoneyDid } from "../payments/apply-charge-update";
import { settledState } from "../payments/payment-consistency";
import { deriveEventKey } from "../providers/signature";

// A charge the gateway shows in another state than our payment: stored as a derived-key event with
// the observed state as its body, and applied by the worker like any other event (the ledger then
// says "reconcile"). Its key (the drivers' derived-key rule: resource|type|status|time) names the
// gateway's state and ours, so the same drift seen again is a duplicate: nothing is written twice.

export type LocalPayment = {
  chargeId: string;
  status: string;
  amount: number | null;
  amountRefunded: number;
  pendingEvents: boolean;
  /** The parsed body of its latest gateway event still holding one (null: none, or all archived): its account (accountOf). */
  lastPayload: unknown;
};

/**
 * The payload of payment `p`'s latest event from the gateway that still holds one. Not a drift's:
 * that body is our observation, which names no account.
 */
export const LAST_PAYLOAD = `(SELECT w.payload FROM webhook_inbox w
   WHERE w.provider = p.provider AND w.resource_id = p.gateway_charge_id AND w.payload IS NOT NULL
     AND NOT (w.source = 'reconcile' AND w.event_id_derived)
   ORDER BY w.id DESC LIMIT 1)`;

/** Our payments for these charges, whether an event of theirs is still waiting to be processed, and its latest body. */
export async function localPayments(db: Queryable, provider: string, chargeIds: readonly string[]): Promise<Map<string, LocalPayment>> {
  if (chargeIds.length === 0) return new Map();
  // Amounts are minor units: float8 holds them exactly (below 2^53).
  const { rows } = await db.query<LocalPayment>(
    `SELECT p.gateway_charge_id AS "chargeId", p.status, p.amount::float8 AS amount, p.amount_refunded::float8 AS "amountRefunded",
            EXISTS (SELECT 1 FROM webhook_inbox w WHERE w.provider = p.provider AND w.resource_id = p.gateway_charge_id AND w.status = 'pending') AS "pendingEvents",
            ${LAST_PAYLOAD} AS "lastPayload"
       FROM payments p WHERE p.provider = $1 AND p.gateway_charge_id = ANY($2::text[])`,
    [provider, chargeIds],
  );
  return new Map(rows.map((row) => [row.chargeId, row]));
}

/**
 * Does the gateway's state differ from ours? A payment we don't have differs only where the gateway's
 * events create payments (PAYMENT_SOURCE gateway); one with an event still pending is left to it.
 */
export function drifted(local: LocalPayment | undefined, snapshot: ChargeSnapshot, createsPayments: boolean): boolean {
  if (!local) return createsPayments;
  if (local.pendingEvents) return false;
  // Read as the worker would: a charge canceled with money back on a captured payment is its refund,
  // and a state is settled by its amounts (a cancellation's canceled amount is no refund).
  const seen = byWhatTheMoneyDid({ status: local.status as ChargeStatus }, snapshot);
  const settled = settledState(
    { status: seen.status, amountRefunded: seen.amountRefunded ?? local.amountRefunded },
    local.amount ?? snapshot.amount,
  );
  return local.status !== settled.status || settled.amountRefunded !== local.amountRefunded;
}

export type DriftDeps = { pool: Pool; boss: PgBoss; config: AppConfig };

/** The derived key of one drift: the gateway's state (and its own update time, when it gives one) and ours. */
export function driftKey(observed: ObservedCharge, updatedAt: string | null, local: LocalPayment | undefined): string {
  const theirs = `${observed.gatewayStatus}/${observed.snapshot.status}/${observed.snapshot.amountRefunded ?? ""}`;
  const ours = local ? `${local.status}/${local.amountRefunded}` : "none";
  return deriveEventKey(observed.resourceId, observedChargeType(observed), theirs, `${updatedAt ?? ""}|ours:${ours}`);
}

/**
 * Records the drift as a derived event (source "reconcile") with its job, for the worker to apply like
 * any other; false when the same drift was recorded before.
 */
export async function recordDriftEvent(
  deps: DriftDeps,
  where: { provider: string; /** The account it is filed under. */ account: string },
  observed: ObservedCharge,
  key: string,
): Promise<boolean> {
  const inboxId = await storeEvent(deps, {
    provider: where.provider,
    account: where.account,
    columns: {
      eventId: key,
      eventIdDerived: true,
      type: observedChargeType(observed),
      resourceId: observed.resourceId,
      customerId: observed.snapshot.customerId ?? null,
      customerEmail: observed.snapshot.customerEmail?.toLowerCase() ?? null,
      payload: jsonbText(observed),
      occurredAt: observed.observedAt,
      precision: "millisecond",
      account: null,
    },
    error: null,
    rawBody: Buffer.from(JSON.stringify(observed)),
    headers: {},
    queryString: null,
    source: "reconcile",
  });
  return inboxId !== null;
}
