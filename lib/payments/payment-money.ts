// What a payment's amounts mean for the money, by its status: the one definition behind a payment's
// page, the payments list's totals and a customer's (docs/console.md, "Totals"). Every figure is
// linear in (amount, refunded) for a given status, so it applies as well to sums per status.

import type { PaymentStatus } from "./state-machine";

/** The statuses in which the gateway took the money, whatever happened to it afterwards. */
export const CAPTURED_STATUSES = [
  "paid",
  "partially_refunded",
  "refunded",
  "disputed",
  "charged_back",
] as const satisfies readonly PaymentStatus[];
const CAPTURED: ReadonlySet<string> = new Set(CAPTURED_STATUSES);

/** Minor units of one currency. */
export type PaymentMoney = {
  /** Taken from the customer: the amount of every captured payment. */
  captured: number;
  /** Given back by refunds, out of what was captured. */
  refunded: number;
  /** Under an open dispute: what the refunds left of the payment, still held but at risk. */
  disputed: number;
  /** Taken back by lost disputes: what the refunds had left of the payment. */
  chargedBack: number;
  /** Kept: captured less refunded less charged back (a disputed amount counts until it is lost). */
  net: number;
};

export const NO_MONEY: PaymentMoney = { captured: 0, refunded: 0, disputed: 0, chargedBack: 0, net: 0 };

/** Whether a payment in this status had its money taken (else its amount was only attempted). */
export function wasCaptured(status: string): boolean {
  return CAPTURED.has(status);
}

/** The money of a payment (or of a sum of payments) in one status; an unknown amount counts as none. */
export function paymentMoney(status: string, amount: number | null, refunded: number): PaymentMoney {
  if (!wasCaptured(status) || amount === null) return NO_MONEY;
  const left = amount - refunded;
  const disputed = status === "disputed" ? left : 0;
  const chargedBack = status === "charged_back" ? left : 0;
  return { captured: amount, refunded, disputed, chargedBack, net: amount - refunded - chargedBack };
}

export function addMoney(a: PaymentMoney, b: PaymentMoney): PaymentMoney {
  return {
    captured: a.captured + b.captured,
    refunded: a.refunded + b.refunded,
    disputed: a.disputed + b.disputed,
    chargedBack: a.chargedBack + b.chargedBack,
    net: a.net + b.net,
  };
}
