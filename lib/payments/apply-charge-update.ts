import { plannedPerCall, type Queryable } from "../db/pool";
import type { ChargeSnapshot } from "../canonical/charge-event";
import { DEFAULT_ACCOUNT } from "../canonical/gateway-account";
import { changedPaymentSql, recordChangesSql, statusKeptSql } from "../outbox/payment-change";
import { decide, type CurrentPayment, type Decision, type EventTime, type IgnoredReason, type PaymentState } from "./state-machine";
import { settledState } from "./payment-consistency";

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
  /** The inbox event behind the observation, recorded with the change it causes. */
  cause: { eventId: string; eventType: string; occurredAt: string | null };
  /** event: the event's own body; refetch: fetched for it; reconcile: seen by a reconciliation run. */
  source: "event" | "refetch" | "reconcile";
  /** Gateway-sourced payments are created from their first event; host-sourced ones must exist. */
  createIfMissing: boolean;
  /** The gateway account of the inbox event (DEFAULT_ACCOUNT when absent). */
  account?: string;
};

/** The payment an observation is decided against; `amount` when it is known. */
export type LedgerPayment = CurrentPayment & { amount?: number | null };

/**
 * What one observation does to a payment (null: not known yet), decided without touching the
 * database: the worker applies this decision, and the replay preview shows it as a dry run. The
 * state written is settled by its amounts (settledState): no status beside amounts that contradict it.
 */
export function decideChargeUpdate(current: LedgerPayment | null, snapshot: ChargeSnapshot, at: EventTime | null): Decision {
  if (!current) return { action: "create", state: createdState(snapshot) };
  const observed = byWhatTheMoneyDid(current, snapshot);
  const decision = decide(current, {
    state: { status: observed.status, amountRefunded: observed.amountRefunded ?? current.amountRefunded },
    at,
    summary: snapshot.summary,
    reopens: snapshot.reopens,
  });
  return decision.action === "apply"
    ? { action: "apply", state: settledState(decision.state, current.amount ?? snapshot.amount) }
    : decision;
}

// States in which the ledger knows the money was captured (a refund included: it gave captured money back).
const CAPTURED: ReadonlySet<PaymentState["status"]> = new Set(["paid", "partially_refunded", "refunded"]);

/**
 * A charge reported canceled with money given back, on a payment the ledger knows was captured, is a
 * refund (partial while less than the amount went back): "canceled" can't follow paid, and ignoring it
 * would leave refunded money as paid. A gateway may show a refunded card charge exactly so: status
 * canceled, an amount canceled, and no sign it was ever paid, so only the ledger can tell.
 */
export function byWhatTheMoneyDid(current: Pick<CurrentPayment, "status">, snapshot: ChargeSnapshot): ChargeSnapshot {
  if (snapshot.status !== "canceled" || !CAPTURED.has(current.status) || !snapshot.amountRefunded) return snapshot;
  const partial = snapshot.amount !== undefined && snapshot.amountRefunded < snapshot.amount;
  return { ...snapshot, status: partial ? "partially_refunded" : "refunded" };
}

/** A payment created from its first observation, settled by its amounts. */
function createdState(snapshot: ChargeSnapshot): PaymentState {
  return settledState({ status: snapshot.status, amountRefunded: snapshot.amountRefunded ?? 0 }, snapshot.amount);
}

export type ApplyResult = { outcome: "processed"; alreadyApplied?: boolean } | { outcome: "ignored"; reason: IgnoredReason };

type PaymentRow = {
  id: number;
  version: number;
  status: PaymentState["status"];
  amount: number | null;
  amount_refunded: number;
  last_micros: string | null;
  last_gateway_event_precision: EventTime["precision"] | null;
  applied: boolean;
  /** The payment lacks a fact (amount, currency, customer) an ignored event may still supply. */
  missing_facts: boolean;
};

export function microsToIso(micros: bigint): string {
  const seconds = micros / 1_000_000n;
  const fraction = (micros % 1_000_000n).toString().padStart(6, "0");
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${fraction}Z`;
}

// The facts a later observation may add to a payment (camel-case name, column): the payment's row
// says which it lacks, a snapshot which it has, and the write adds those (fillsFact).
const GAP_FACTS = [
  ["amount", "amount"],
  ["currency", "currency"],
  ["customerId", "customer_id"],
  ["customerEmail", "customer_email"],
] as const;

// The payment rows, locked until the transaction ends: every event of one payment waits here for the
// one before it, whichever worker runs it. Locked in id order, so two workers' sets can't deadlock.
// The time is read as exact microseconds (a JS Date would round it to milliseconds). Each row also
// says whether its event's effect is already in the ledger (a replay): an effect is always recorded
// against its own payment, so no payment row means no effect yet.
const LOCK_PAYMENTS = plannedPerCall(`
  SELECT k.position, p.id, p.version, p.status, p.amount, p.amount_refunded, p.last_gateway_event_precision,
         (extract(epoch FROM p.last_gateway_event_at) * 1000000)::bigint::text AS last_micros,
         EXISTS (SELECT 1 FROM payment_transitions t WHERE t.inbox_id = k.inbox_id) AS applied,
         (${GAP_FACTS.map(([, column]) => `p.${column} IS NULL`).join(" OR ")}) AS missing_facts
    FROM unnest($1::text[], $2::text[], $3::bigint[]) WITH ORDINALITY AS k(provider, charge_id, inbox_id, position)
    JOIN payments p ON p.provider = k.provider AND p.gateway_charge_id = k.charge_id
   ORDER BY p.id
     FOR UPDATE OF p`);

// An observation adds a fact when the payment lacks it and the observation has it.
const fillsFact = (column: string) => `p.${column} IS NULL AND d.${column} IS NOT NULL`;

// An observation names the account of a payment that had none (what LEARNT_ACCOUNT below writes).
const learnsAccount = (existing: boolean) =>
  `${existing ? `p.gateway_account = '${DEFAULT_ACCOUNT}' AND ` : ""}d.gateway_account <> '${DEFAULT_ACCOUNT}'`;

// Which observation supplied each fact a payment did not have yet (inbox id and event or refetch),
// kept beside the facts so the console can say where an amount, a customer or the account came from,
// and which event's change it was when the status did not move.
const factsFrom = (existing: boolean) =>
  `${existing ? "p.facts_from" : "'{}'::jsonb"} || jsonb_strip_nulls(jsonb_build_object(${[
    ...GAP_FACTS.map(([name, column]) => [name, existing ? fillsFact(column) : `d.${column} IS NOT NULL`] as const),
    ["account", learnsAccount(existing)] as const,
  ]
    .map(([name, fills]) => `'${name}', CASE WHEN ${fills} THEN jsonb_build_object('inboxId', d.inbox_id, 'source', d.source) END`)
    .join(", ")}))`;

// A payment's account is its first event's; one registered by the host (no account) or first seen
// as the default account's takes the account a later event names. Ids are unique per gateway, not
// per account (docs/gateways.md), so the account is a fact of the payment, not part of its key.
const LEARNT_ACCOUNT = `CASE WHEN p.gateway_account = '${DEFAULT_ACCOUNT}' THEN d.gateway_account ELSE p.gateway_account END`;

// A refusal is kept while the payment has not succeeded (a pending payment may be tried again and keep
// the last refusal in view until a newer one comes) and cleared once it is authorized or paid, or any
// state that follows.
const UNSUCCESSFUL = "('pending', 'failed', 'canceled')";
const OBSERVED_DECLINE = "NULLIF(jsonb_strip_nulls(jsonb_build_object('code', d.decline_code, 'message', d.decline_message)), '{}'::jsonb)";

const SEEN_LATER = "d.kind = 'seen_again' AND (p.last_gateway_event_at IS NULL OR p.last_gateway_event_at < d.at::timestamptz)";
// An observation gives a fact the payment lacks, or names the account of one that had none
// (what the gap-filling COALESCEs and LEARNT_ACCOUNT below write).
const FILLS_A_GAP = `(${[...GAP_FACTS.map(([, column]) => fillsFact(column)), learnsAccount(true)]
  .map((condition) => `(${condition})`)
  .join(" OR ")})`;

// Every decided write of the set, in one round trip, each with its ledger entry:
// - create: a payment from its first observation (none when another transaction created it first:
//   the statement returns only the payments it created);
// - apply: the new state; facts a later event may add (amount, currency, customer) fill gaps but
//   never overwrite;
// - seen_again: the same state seen again, later, still tells us it held at that later time, so the
//   payment's last event time moves forward and anything older that arrives afterwards is stale. (A
//   dispute won before its "opened" arrives: the late "opened" must not reopen it.)
// - facts: an ignored observation (stale, not allowed) changes no status, but still says who paid
//   and how much; those facts fill gaps like an applied one's. seen_again fills them too.
// Every create and apply also bumps the payment's version and records its change (the outbox's piece:
// the row the feed and the destinations read) in this same statement: a change exists exactly when
// its payment change committed. A seen_again or facts that fills a gap (an amount, a currency, a
// customer, the account) changes what the host sees: it bumps the version too and records a change
// with the status unchanged, but no transition (the status did not move). One that fills nothing
// records none.
// The event each decided row stands for: what caused its change.
const EVENT_CAUSE = { inboxId: "d.inbox_id", eventId: "d.event_id", eventType: "d.event_type", occurredAt: "d.occurred_at::timestamptz" };
const RECORD_CHANGES = recordChangesSql(
  { ...changedPaymentSql("p"), previousStatus: "d.from_status", status: "d.status", amountRefunded: "d.amount_refunded", ...EVENT_CAUSE },
  `(SELECT *, 'create' AS kind FROM created UNION ALL SELECT *, 'apply' FROM applied) p
      JOIN decided d ON d.kind = p.kind AND d.provider = p.provider AND d.charge_id = p.gateway_charge_id`,
  "p.id",
);
const RECORD_FILLED_FACTS = recordChangesSql(
  { ...changedPaymentSql("p"), ...statusKeptSql("p"), ...EVENT_CAUSE },
  "seen_again p JOIN decided d ON d.payment_id = p.id AND p.version > d.locked_version",
  "p.id",
);
const WRITE_PAYMENTS = plannedPerCall(`
  WITH decided AS (
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::text[],
                         $9::text[], $10::text[], $11::text[], $12::text[], $13::bigint[], $14::text[], $15::bigint[], $16::text[],
                         $17::text[], $18::text[], $19::text[], $20::text[], $21::text[], $22::text[], $23::bigint[])
      AS d(kind, payment_id, provider, charge_id, status, amount_refunded, amount, currency, customer_id, customer_email,
           at, at_precision, inbox_id, from_status, from_amount_refunded, source, event_id, event_type, occurred_at, gateway_account,
           decline_code, decline_message, locked_version)
  ), created AS (
    INSERT INTO payments (provider, gateway_charge_id, status, amount, amount_refunded, currency,
                          customer_id, customer_email, registered_by, last_gateway_event_at, last_gateway_event_precision, version, facts_from,
                          gateway_account, decline_reason)
    SELECT provider, charge_id, status, amount, amount_refunded, currency, customer_id, customer_email, 'gateway', at::timestamptz, at_precision, 1,
           ${factsFrom(false)}, gateway_account, CASE WHEN status IN ${UNSUCCESSFUL} THEN ${OBSERVED_DECLINE} END
      FROM decided d
     WHERE kind = 'create'
     ORDER BY provider, charge_id
    ON CONFLICT (provider, gateway_charge_id) DO NOTHING
    RETURNING id, provider, gateway_charge_id, version, amount, currency, customer_id, customer_email, gateway_account, decline_reason
  ), applied AS (
    UPDATE payments p
       SET status = d.status, amount_refunded = d.amount_refunded,
           amount = COALESCE(p.amount, d.amount), currency = COALESCE(p.currency, d.currency),
           customer_id = COALESCE(p.customer_id, d.customer_id), customer_email = COALESCE(p.customer_email, d.customer_email),
           facts_from = ${factsFrom(true)}, gateway_account = ${LEARNT_ACCOUNT},
           decline_reason = CASE WHEN d.status IN ${UNSUCCESSFUL} THEN COALESCE(${OBSERVED_DECLINE}, p.decline_reason) END,
           last_gateway_event_at = COALESCE(GREATEST(p.last_gateway_event_at, d.at::timestamptz), p.last_gateway_event_at, d.at::timestamptz),
           last_gateway_event_precision = CASE WHEN d.at IS NOT NULL
                AND (d.at::timestamptz >= p.last_gateway_event_at OR p.last_gateway_event_at IS NULL)
                THEN d.at_precision ELSE p.last_gateway_event_precision END,
           version = p.version + 1, updated_at = now()
      FROM decided d
     WHERE p.id = d.payment_id AND d.kind = 'apply'
    RETURNING p.id, p.provider, p.gateway_charge_id, p.version, p.amount, p.currency, p.customer_id, p.customer_email, p.gateway_account,
              p.decline_reason
  ), seen_again AS (
    UPDATE payments p
       SET last_gateway_event_at = CASE WHEN ${SEEN_LATER} THEN d.at::timestamptz ELSE p.last_gateway_event_at END,
           last_gateway_event_precision = CASE WHEN ${SEEN_LATER} THEN d.at_precision ELSE p.last_gateway_event_precision END,
           amount = COALESCE(p.amount, d.amount), currency = COALESCE(p.currency, d.currency),
           customer_id = COALESCE(p.customer_id, d.customer_id), customer_email = COALESCE(p.customer_email, d.customer_email),
           facts_from = ${factsFrom(true)}, gateway_account = ${LEARNT_ACCOUNT},
           version = p.version + CASE WHEN ${FILLS_A_GAP} THEN 1 ELSE 0 END,
           updated_at = CASE WHEN ${FILLS_A_GAP} THEN now() ELSE p.updated_at END
      FROM decided d
     WHERE p.id = d.payment_id AND d.kind IN ('seen_again', 'facts')
    RETURNING p.id, p.provider, p.gateway_charge_id, p.version, p.status, p.amount, p.amount_refunded, p.currency, p.customer_id,
              p.customer_email, p.gateway_account, p.decline_reason
  ), recorded AS (
    INSERT INTO payment_transitions (payment_id, inbox_id, from_status, to_status, from_amount_refunded, to_amount_refunded, source)
    SELECT created.id, d.inbox_id, NULL, d.status, NULL, d.amount_refunded, d.source
      FROM created JOIN decided d ON d.kind = 'create' AND d.provider = created.provider AND d.charge_id = created.gateway_charge_id
    UNION ALL
    SELECT applied.id, d.inbox_id, d.from_status, d.status, d.from_amount_refunded, d.amount_refunded, d.source
      FROM applied JOIN decided d ON d.kind = 'apply' AND d.payment_id = applied.id
  ), changed AS (
    ${RECORD_CHANGES}
  ), filled AS (
    ${RECORD_FILLED_FACTS}
  )
  SELECT provider, gateway_charge_id FROM created`);

type Planned = { update: ChargeUpdate; snapshot: ChargeSnapshot; atIso: string | null; atPrecision: EventTime["precision"] | null };

function plan(update: ChargeUpdate): Planned {
  return {
    update,
    snapshot: { ...update.snapshot, customerEmail: update.snapshot.customerEmail?.toLowerCase() },
    atIso: update.at ? microsToIso(update.at.micros) : null,
    atPrecision: update.at?.precision ?? null,
  };
}

/** The locked payment rows of `items`, by position in `items`. */
async function lockPayments(tx: Queryable, items: readonly Planned[]): Promise<Map<number, PaymentRow>> {
  const { rows } = await tx.query<PaymentRow & { position: number }>(
    LOCK_PAYMENTS([
      items.map(({ update }) => update.provider),
      items.map(({ update }) => update.chargeId),
      items.map(({ update }) => update.inboxId),
    ]),
  );
  return new Map(rows.map((row) => [row.position - 1, row]));
}

function currentOf(row: PaymentRow): LedgerPayment {
  return {
    status: row.status,
    amount: row.amount,
    amountRefunded: row.amount_refunded,
    lastEventAt:
      row.last_micros !== null && row.last_gateway_event_precision
        ? { micros: BigInt(row.last_micros), precision: row.last_gateway_event_precision }
        : null,
  };
}

/** One payment, as a key: a batch holds at most one update per key. */
export const paymentKey = (provider: string, chargeId: string) => `${provider}\u0000${chargeId}`;

type Write = Planned & { kind: "create" | "apply" | "seen_again" | "facts"; row: PaymentRow | null; state: PaymentState | null };

// A zero amount is a fact (a card check), only an absent one is not.
const hasFacts = (snapshot: ChargeSnapshot) => GAP_FACTS.some(([name]) => snapshot[name] != null);

/** Writes the decisions; returns the keys of the payments it created. */
async function writePayments(tx: Queryable, writes: readonly Write[]): Promise<Set<string>> {
  if (writes.length === 0) return new Set();
  const { rows } = await tx.query<{ provider: string; gateway_charge_id: string }>(
    WRITE_PAYMENTS([
      writes.map(({ kind }) => kind),
      writes.map(({ row }) => row?.id ?? null),
      writes.map(({ update }) => update.provider),
      writes.map(({ update }) => update.chargeId),
      writes.map(({ state }) => state?.status ?? null),
      writes.map(({ state }) => state?.amountRefunded ?? null),
      writes.map(({ snapshot }) => snapshot.amount ?? null),
      writes.map(({ snapshot }) => snapshot.currency ?? null),
      writes.map(({ snapshot }) => snapshot.customerId ?? null),
      writes.map(({ snapshot }) => snapshot.customerEmail ?? null),
      writes.map(({ atIso }) => atIso),
      writes.map(({ atPrecision }) => atPrecision),
      writes.map(({ update }) => update.inboxId),
      writes.map(({ row }) => row?.status ?? null),
      writes.map(({ row }) => row?.amount_refunded ?? null),
      writes.map(({ update }) => update.source),
      writes.map(({ update }) => update.cause.eventId),
      writes.map(({ update }) => update.cause.eventType),
      writes.map(({ update }) => update.cause.occurredAt),
      writes.map(({ update }) => update.account ?? DEFAULT_ACCOUNT),
      writes.map(({ snapshot }) => snapshot.declineReason?.code ?? null),
      writes.map(({ snapshot }) => snapshot.declineReason?.message ?? null),
      writes.map(({ row }) => row?.version ?? null),
    ]),
  );
  return new Set(rows.map((row) => paymentKey(row.provider, row.gateway_charge_id)));
}

/**
 * Applies observations of distinct payments inside the caller's transaction, a few statements for
 * the whole set: locks the payment rows, decides each with the state machine and occurred_at, writes
 * the new states and records each effect in the ledger (unique per inbox event, so an effect can
 * never be applied twice). Results come back in the order of `updates`. A host-sourced payment not
 * registered yet throws UnknownPaymentError for the whole set.
 */
export async function applyChargeUpdates(tx: Queryable, updates: readonly ChargeUpdate[]): Promise<ApplyResult[]> {
  const planned = updates.map(plan);
  if (new Set(updates.map((update) => paymentKey(update.provider, update.chargeId))).size !== updates.length) {
    throw new Error("applyChargeUpdates takes at most one update per payment");
  }
  const results: ApplyResult[] = new Array(updates.length);
  let undecided = planned.map((_, index) => index);
  // A payment another transaction creates between our read and our insert is decided again, against
  // its row: the next round locks it.
  for (let round = 0; undecided.length > 0; round++) {
    if (round === 2) throw new Error("a payment kept being created concurrently; retrying");
    const rows = await lockPayments(
      tx,
      undecided.map((index) => planned[index]!),
    );
    const writes: Write[] = [];
    const creates: number[] = [];
    undecided.forEach((index, position) => {
      const item = planned[index]!;
      const row = rows.get(position) ?? null;
      if (!row) {
        if (!item.update.createIfMissing) throw new UnknownPaymentError(item.update.provider, item.update.chargeId);
        creates.push(index);
        writes.push({ ...item, row, state: createdState(item.snapshot), kind: "create" });
      } else if (row.applied) {
        results[index] = { outcome: "processed", alreadyApplied: true };
      } else {
        const decision = decideChargeUpdate(currentOf(row), item.snapshot, item.update.at);
        if (decision.action === "ignore") {
          results[index] = { outcome: "ignored", reason: decision.reason };
          if (decision.reason === "duplicate_in_meaning" && item.atIso) writes.push({ ...item, row, state: null, kind: "seen_again" });
          else if (row.missing_facts && hasFacts(item.snapshot)) writes.push({ ...item, row, state: null, kind: "facts" });
        } else {
          results[index] = { outcome: "processed" };
          writes.push({ ...item, row, state: decision.state, kind: "apply" });
        }
      }
    });
    const created = await writePayments(tx, writes);
    undecided = creates.filter((index) => {
      const { update } = planned[index]!;
      if (!created.has(paymentKey(update.provider, update.chargeId))) return true;
      results[index] = { outcome: "processed" };
      return false;
    });
  }
  return results;
}
