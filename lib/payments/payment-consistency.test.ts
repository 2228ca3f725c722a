import { describe, expect, it } from "vitest";
import { PAYMENT_STATUSES, type PaymentStatus } from "./state-machine";
import { settledState, statusContradiction } from "./payment-consistency";

// A status and its amounts tell one story: settledState makes them, statusContradiction finds where
// they don't.

describe("settledState", () => {
  it.each<[PaymentStatus, number, number | null, PaymentStatus, number]>([
    // A cancellation's canceled amount is no refund; nothing taken, nothing back.
    ["canceled", 21734, 21734, "canceled", 0],
    ["pending", 500, 1000, "pending", 0],
    ["authorized", 500, 1000, "authorized", 0],
    ["failed", 500, 1000, "failed", 0],
    // Refunded means all of it went back, whatever figure came with it.
    ["refunded", 0, 1000, "refunded", 1000],
    ["refunded", 300, 1000, "refunded", 1000],
    ["refunded", 0, null, "refunded", 0],
    // Money back on a paid payment is a refund; all of it, a full one.
    ["paid", 300, 1000, "partially_refunded", 300],
    ["paid", 1000, 1000, "refunded", 1000],
    ["paid", 300, null, "partially_refunded", 300],
    ["partially_refunded", 1000, 1000, "refunded", 1000],
    ["partially_refunded", 300, 1000, "partially_refunded", 300],
    ["paid", 0, 1000, "paid", 0],
    // A dispute keeps what went back before it.
    ["disputed", 300, 1000, "disputed", 300],
    ["charged_back", 300, 1000, "charged_back", 300],
  ])("%s with %i of %s refunded -> %s, %i", (status, refunded, amount, settled, settledRefund) => {
    expect(settledState({ status, amountRefunded: refunded }, amount)).toEqual({ status: settled, amountRefunded: settledRefund });
  });

  it("leaves no contradiction it can settle, for any status and amounts", () => {
    for (const status of PAYMENT_STATUSES) {
      for (const [refunded, amount] of [
        [0, 1000],
        [300, 1000],
        [1000, 1000],
        [300, null],
      ] as const) {
        const settled = settledState({ status, amountRefunded: refunded }, amount);
        const unknowable = settled.status === "partially_refunded" && settled.amountRefunded === 0;
        if (!unknowable) expect(statusContradiction({ ...settled, amount })).toBeNull();
      }
    }
  });
});

describe("statusContradiction", () => {
  it("names what a status's amounts contradict", () => {
    expect(statusContradiction({ status: "canceled", amount: 33950, amountRefunded: 33950 })).toBe("canceled, yet 33950 was refunded");
    expect(statusContradiction({ status: "paid", amount: 1000, amountRefunded: 10 })).toBe("paid, yet 10 was refunded");
    expect(statusContradiction({ status: "refunded", amount: 1000, amountRefunded: 10 })).toBe("refunded, yet only 10 of 1000");
    expect(statusContradiction({ status: "partially_refunded", amount: 1000, amountRefunded: 0 })).toBe(
      "partially refunded, yet nothing was refunded",
    );
    expect(statusContradiction({ status: "partially_refunded", amount: 1000, amountRefunded: 1000 })).toBe(
      "partially refunded, yet all of 1000 was refunded",
    );
  });

  it("finds none where they agree", () => {
    expect(statusContradiction({ status: "canceled", amount: 33950, amountRefunded: 0 })).toBeNull();
    expect(statusContradiction({ status: "refunded", amount: 33950, amountRefunded: 33950 })).toBeNull();
    expect(statusContradiction({ status: "refunded", amount: null, amountRefunded: 0 })).toBeNull();
    expect(statusContradiction({ status: "disputed", amount: 1000, amountRefunded: 300 })).toBeNull();
  });
});
