import type { PaymentState, PaymentStatus } from "./state-machine";

// A payment's status and its amounts tell one story: the ledger never stores a state whose amounts
// say otherwise, and anything that shows a payment can check the same rule.

// States in which no money was taken, so none can have gone back.
const NOTHING_TAKEN: ReadonlySet<PaymentStatus> = new Set(["pending", "authorized", "failed", "canceled"]);

/**
 * The state as its amounts make it (`amount` unknown: only what needs no amount is settled):
 * - nothing taken (pending, authorized, failed, canceled): nothing refunded. A cancellation's
 *   canceled amount is no refund;
 * - refunded: the whole amount went back (a figure below it is one the observation didn't state);
 * - paid or partially refunded with money back: partially refunded, refunded once all went back.
 *   A won dispute on a partly refunded payment returns it there, not to paid.
 * Disputes and chargebacks keep what had gone back before them.
 */
export function settledState(state: PaymentState, amount: number | null | undefined): PaymentState {
  const { status, amountRefunded } = state;
  if (NOTHING_TAKEN.has(status)) return { status, amountRefunded: 0 };
  const known = amount !== null && amount !== undefined;
  if (status === "refunded") return known && amountRefunded < amount ? { status, amountRefunded: amount } : state;
  if ((status === "paid" || status === "partially_refunded") && amountRefunded > 0) {
    return { status: known && amountRefunded >= amount ? "refunded" : "partially_refunded", amountRefunded };
  }
  return state;
}

export type PaymentAmounts = { status: PaymentStatus; amount: number | null; amountRefunded: number };

/** What in a payment's status its own amounts contradict, in words; null when they agree. */
export function statusContradiction({ status, amount, amountRefunded }: PaymentAmounts): string | null {
  if (NOTHING_TAKEN.has(status) && amountRefunded > 0) return `${status}, yet ${amountRefunded} was refunded`;
  if (status === "paid" && amountRefunded > 0) return `paid, yet ${amountRefunded} was refunded`;
  if (status === "partially_refunded" && amountRefunded === 0) return "partially refunded, yet nothing was refunded";
  if (status === "partially_refunded" && amount !== null && amountRefunded >= amount) {
    return `partially refunded, yet all of ${amount} was refunded`;
  }
  if (status === "refunded" && amount !== null && amountRefunded < amount) return `refunded, yet only ${amountRefunded} of ${amount}`;
  return null;
}
