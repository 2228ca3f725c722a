import { CHARGE_STATUSES, type ChargeStatus, type Precision } from "../canonical/charge-event";

// The payment state machine and the ordering rules, pure and table-tested. The database writes that
// apply a decision live in apply-charge-update.ts.

export const PAYMENT_STATUSES = CHARGE_STATUSES;
export type PaymentStatus = ChargeStatus;

/**
 * The transition graph, one edge per thing a gateway can do next. It is acyclic, so "reachable"
 * orders any two states; `partially_refunded -> partially_refunded` is a further partial refund
 * (forward only when the refunded amount grows, see isForward). `canceled -> refunded` corrects a
 * crossed notice: a refund is only made of money that was taken, so a payment held canceled that the
 * gateway later shows refunded was captured first, and its cancellation was that refund, read before
 * its capture was known.
 */
const EDGES: Record<PaymentStatus, readonly PaymentStatus[]> = {
  pending: ["authorized", "paid", "failed", "canceled"],
  authorized: ["paid", "failed", "canceled"],
  paid: ["partially_refunded", "refunded", "disputed"],
  partially_refunded: ["partially_refunded", "refunded", "disputed"],
  disputed: ["charged_back"],
  failed: [],
  canceled: ["partially_refunded", "refunded"],
  refunded: [],
  charged_back: [],
};

/**
 * A won dispute puts a disputed payment back where it was: paid, or partially refunded when part of
 * it had gone back before the dispute. Direct edges only, never part of a longer path: otherwise
 * `paid` would be reachable from every refund state through a dispute, and a late
 * `charge.succeeded` would undo refunds.
 */
const REINSTATEMENTS: Partial<Record<PaymentStatus, readonly PaymentStatus[]>> = { disputed: ["paid", "partially_refunded"] };

/** Is `from -> to` a reinstatement (a dispute ending in the merchant's favour)? */
export function isReinstatement(from: PaymentStatus, to: PaymentStatus): boolean {
  return REINSTATEMENTS[from]?.includes(to) ?? false;
}

function reachableFrom(from: PaymentStatus): ReadonlySet<PaymentStatus> {
  const seen = new Set<PaymentStatus>();
  const queue = [...EDGES[from]];
  while (queue.length > 0) {
    const next = queue.shift()!;
    if (seen.has(next)) continue;
    seen.add(next);
    queue.push(...EDGES[next]);
  }
  for (const reinstated of REINSTATEMENTS[from] ?? []) seen.add(reinstated);
  return seen;
}

const REACHABLE = new Map(PAYMENT_STATUSES.map((from) => [from, reachableFrom(from)]));

/**
 * Whether `to` is reachable from `from` in one or more steps. Reachable, not adjacent: a refund that
 * arrives before the payment's `paid` moves a pending payment to refunded (paid was implied), and
 * the late `paid` is then not reachable from refunded and is ignored.
 */
export function canTransitionTo(from: PaymentStatus, to: PaymentStatus): boolean {
  return REACHABLE.get(from)!.has(to);
}

export type PaymentState = { status: PaymentStatus; amountRefunded: number };

const REFUND_STATUSES: ReadonlySet<PaymentStatus> = new Set(["partially_refunded", "refunded"]);

/** Same status and, for refunds, the same refunded amount: nothing would change. */
export function sameState(a: PaymentState, b: PaymentState): boolean {
  return a.status === b.status && (!REFUND_STATUSES.has(a.status) || a.amountRefunded === b.amountRefunded);
}

/** Is `to` a step forward from `from`? (Refunded amounts never go down.) */
export function isForward(from: PaymentState, to: PaymentState): boolean {
  if (REFUND_STATUSES.has(from.status) && REFUND_STATUSES.has(to.status) && to.amountRefunded < from.amountRefunded) {
    return false;
  }
  if (from.status === to.status) return from.status === "partially_refunded" && to.amountRefunded > from.amountRefunded;
  return canTransitionTo(from.status, to.status);
}

/** A point in time as the gateway gave it: microseconds since the epoch plus its precision. */
export type EventTime = { micros: bigint; precision: Precision };

const UNIT: Record<Precision, bigint> = { second: 1_000_000n, millisecond: 1_000n, microsecond: 1n };

/**
 * Orders two gateway times at the coarser of their precisions: a second-precision event and a
 * microsecond one in the same second are a tie, not "older" and "newer".
 */
export function compareEventTimes(a: EventTime, b: EventTime): -1 | 0 | 1 {
  const unit = UNIT[a.precision] > UNIT[b.precision] ? UNIT[a.precision] : UNIT[b.precision];
  const left = floorDiv(a.micros, unit);
  const right = floorDiv(b.micros, unit);
  return left < right ? -1 : left > right ? 1 : 0;
}

function floorDiv(value: bigint, unit: bigint): bigint {
  const quotient = value / unit;
  return value % unit < 0n ? quotient - 1n : quotient;
}

/** Parses an ISO-8601 UTC time with up to 6 fractional digits into exact microseconds. */
export function isoToMicros(iso: string): bigint {
  const match = /^(.*T\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?Z$/.exec(iso);
  if (!match) throw new Error(`not a UTC ISO time: ${iso}`);
  const seconds = BigInt(Date.parse(`${match[1]}Z`)) / 1000n;
  return seconds * 1_000_000n + BigInt((match[2] ?? "").padEnd(6, "0"));
}

export const IGNORED_REASONS = [
  "stale",
  "invalid_transition",
  "duplicate_in_meaning",
  "uninteresting_type",
  "no_resource",
  "already_applied",
  "charge_is_authority",
] as const;
export type IgnoredReason = (typeof IGNORED_REASONS)[number];

export type Decision =
  { action: "create"; state: PaymentState } | { action: "apply"; state: PaymentState } | { action: "ignore"; reason: IgnoredReason };

export type CurrentPayment = PaymentState & { lastEventAt: EventTime | null };
/**
 * `summary`: the state comes from an object that does not see disputes (see ChargeSnapshot.summary).
 * `reopens`: states its gateway documents a way back from (see ChargeSnapshot.reopens).
 */
export type Observation = { state: PaymentState; at: EventTime | null; summary?: boolean; reopens?: readonly PaymentStatus[] };

/**
 * A payment its gateway took back out of its state (a deleted charge restored, a cash receipt
 * undone): the observation says its gateway documents that way back, is newer than the payment's
 * last event (at a tie, or with no clock, a way back can't be told from an older notice arriving
 * late) and shows a state a pending payment can be in, so the payment moves on as a pending one would.
 */
function reopens(current: CurrentPayment, observed: Observation): boolean {
  if (!observed.reopens?.includes(current.status)) return false;
  const { status } = observed.state;
  if (status !== "pending" && !canTransitionTo("pending", status)) return false;
  return !current.lastEventAt || !observed.at || compareEventTimes(observed.at, current.lastEventAt) > 0;
}

/**
 * What to do with one observation of a payment (an event, or a refetched state):
 * 1. unknown payment -> create it in the observed state;
 * 2. older than the last applied observation -> stale;
 * 3. nothing would change -> duplicate in meaning;
 *    a summary (a payment intent over the charge) that would reinstate a disputed payment -> the charge is the
 *    authority: the summary can't see the dispute;
 * 4. a newer observation of a payment its gateway took back out of its state (see reopens) -> apply
 *    it: a state is not final where the gateway documents a way out of it;
 * 5. otherwise apply it only if the state machine allows it (ties at coarse precision included:
 *    there the graph decides which of two same-second events is the later one).
 */
export function decide(current: CurrentPayment | null, observed: Observation): Decision {
  if (!current) return { action: "create", state: observed.state };
  if (current.lastEventAt && observed.at && compareEventTimes(observed.at, current.lastEventAt) < 0) {
    return { action: "ignore", reason: "stale" };
  }
  if (sameState(current, observed.state)) return { action: "ignore", reason: "duplicate_in_meaning" };
  if (observed.summary && isReinstatement(current.status, observed.state.status)) {
    return { action: "ignore", reason: "charge_is_authority" };
  }
  if (!reopens(current, observed) && !isForward(current, observed.state)) return { action: "ignore", reason: "invalid_transition" };
  return { action: "apply", state: observed.state };
}
