import { describe, expect, it } from "vitest";
import { canTransitionTo, compareEventTimes, decide, isForward, isoToMicros, type PaymentStatus } from "./state-machine";

const t = (iso: string, precision: "second" | "millisecond" | "microsecond" = "second") => ({ micros: isoToMicros(iso), precision });

describe("canTransitionTo (reachable, not adjacent)", () => {
  it.each<[PaymentStatus, PaymentStatus, boolean]>([
    ["pending", "paid", true],
    ["pending", "refunded", true],
    ["pending", "charged_back", true],
    ["authorized", "canceled", true],
    ["paid", "partially_refunded", true],
    ["partially_refunded", "partially_refunded", true],
    ["paid", "refunded", true],
    ["disputed", "paid", true],
    ["disputed", "charged_back", true],
    ["partially_refunded", "paid", false],
    ["refunded", "disputed", false],
    ["disputed", "refunded", false],
    ["disputed", "partially_refunded", true],
    ["refunded", "paid", false],
    ["refunded", "partially_refunded", false],
    ["paid", "pending", false],
    ["paid", "authorized", false],
    ["failed", "paid", false],
    ["canceled", "paid", false],
    // A refund is of captured money: a payment held canceled that the gateway shows refunded was captured.
    ["canceled", "refunded", true],
    ["canceled", "partially_refunded", true],
    ["canceled", "pending", false],
    ["refunded", "canceled", false],
    ["charged_back", "paid", false],
    ["charged_back", "disputed", false],
    ["pending", "pending", false],
  ])("%s -> %s is %s", (from, to, expected) => {
    expect(canTransitionTo(from, to)).toBe(expected);
  });
});

describe("isForward", () => {
  it("moves partial refunds forward only when the refunded amount grows", () => {
    expect(isForward({ status: "partially_refunded", amountRefunded: 100 }, { status: "partially_refunded", amountRefunded: 300 })).toBe(
      true,
    );
    expect(isForward({ status: "partially_refunded", amountRefunded: 300 }, { status: "partially_refunded", amountRefunded: 100 })).toBe(
      false,
    );
    expect(isForward({ status: "partially_refunded", amountRefunded: 300 }, { status: "refunded", amountRefunded: 1000 })).toBe(true);
    expect(isForward({ status: "refunded", amountRefunded: 1000 }, { status: "partially_refunded", amountRefunded: 300 })).toBe(false);
    expect(isForward({ status: "paid", amountRefunded: 0 }, { status: "paid", amountRefunded: 0 })).toBe(false);
  });
});

describe("compareEventTimes", () => {
  it("compares at the coarser precision", () => {
    expect(compareEventTimes(t("2024-01-01T00:00:01Z"), t("2024-01-01T00:00:01.900000Z", "microsecond"))).toBe(0);
    expect(compareEventTimes(t("2024-01-01T00:00:01.100Z", "millisecond"), t("2024-01-01T00:00:01.900Z", "millisecond"))).toBe(-1);
    expect(compareEventTimes(t("2024-01-01T00:00:01.000002Z", "microsecond"), t("2024-01-01T00:00:01.000001Z", "microsecond"))).toBe(1);
    expect(compareEventTimes(t("2024-01-01T00:00:02Z"), t("2024-01-01T00:00:01.999Z", "millisecond"))).toBe(1);
  });

  it("reads microseconds exactly", () => {
    expect(isoToMicros("1970-01-01T00:00:01.000001Z")).toBe(1_000_001n);
    expect(isoToMicros("1970-01-01T00:00:01.5Z")).toBe(1_500_000n);
  });
});

describe("decide", () => {
  const paidAt10 = { status: "paid" as const, amountRefunded: 0, lastEventAt: t("2024-01-01T00:00:10Z") };

  it("creates an unknown payment in the observed state", () => {
    expect(decide(null, { state: { status: "refunded", amountRefunded: 5 }, at: null })).toEqual({
      action: "create",
      state: { status: "refunded", amountRefunded: 5 },
    });
  });

  it("ignores what is older than the last applied event", () => {
    expect(decide(paidAt10, { state: { status: "refunded", amountRefunded: 10 }, at: t("2024-01-01T00:00:09Z") })).toEqual({
      action: "ignore",
      reason: "stale",
    });
  });

  it("applies a newer forward step and ignores a newer backward one", () => {
    expect(decide(paidAt10, { state: { status: "refunded", amountRefunded: 10 }, at: t("2024-01-01T00:00:11Z") }).action).toBe("apply");
    expect(decide(paidAt10, { state: { status: "pending", amountRefunded: 0 }, at: t("2024-01-01T00:00:11Z") })).toEqual({
      action: "ignore",
      reason: "invalid_transition",
    });
  });

  it("lets the state machine order two events of the same second", () => {
    const refundSameSecond = { state: { status: "refunded" as const, amountRefunded: 10 }, at: t("2024-01-01T00:00:10Z") };
    expect(decide(paidAt10, refundSameSecond).action).toBe("apply");
    const refundedAt10 = { status: "refunded" as const, amountRefunded: 10, lastEventAt: t("2024-01-01T00:00:10Z") };
    expect(decide(refundedAt10, { state: { status: "paid", amountRefunded: 0 }, at: t("2024-01-01T00:00:10Z") }).action).toBe("ignore");
  });

  it("takes a refund that arrives before paid, then ignores the late paid", () => {
    const pending = { status: "pending" as const, amountRefunded: 0, lastEventAt: null };
    expect(decide(pending, { state: { status: "refunded", amountRefunded: 10 }, at: null }).action).toBe("apply");
    const refunded = { status: "refunded" as const, amountRefunded: 10, lastEventAt: null };
    expect(decide(refunded, { state: { status: "paid", amountRefunded: 0 }, at: null })).toEqual({
      action: "ignore",
      reason: "invalid_transition",
    });
  });

  it("never lets a summary (a PaymentIntent) reinstate a disputed payment, though a charge may", () => {
    const disputedAt10 = { status: "disputed" as const, amountRefunded: 0, lastEventAt: t("2024-01-01T00:00:10Z") };
    const paidAt10Again = { state: { status: "paid" as const, amountRefunded: 0 }, at: t("2024-01-01T00:00:10Z") };
    expect(decide(disputedAt10, { ...paidAt10Again, summary: true })).toEqual({ action: "ignore", reason: "charge_is_authority" });
    expect(decide(disputedAt10, paidAt10Again).action).toBe("apply");
    const pending = { status: "pending" as const, amountRefunded: 0, lastEventAt: t("2024-01-01T00:00:10Z") };
    expect(decide(pending, { ...paidAt10Again, summary: true }).action).toBe("apply");
  });

  it("reopens a state its gateway documents a way out of, only for a newer observation", () => {
    const canceledAt10 = { status: "canceled" as const, amountRefunded: 0, lastEventAt: t("2024-01-01T00:00:10Z") };
    const restored = (iso: string, status: PaymentStatus = "paid") => ({
      state: { status, amountRefunded: 0 },
      at: t(iso),
      reopens: ["canceled"] as const,
    });
    expect(decide(canceledAt10, restored("2024-01-01T00:00:11Z"))).toEqual({
      action: "apply",
      state: { status: "paid", amountRefunded: 0 },
    });
    expect(decide(canceledAt10, restored("2024-01-01T00:00:11Z", "pending")).action).toBe("apply");
    // A tie can't tell a restore from a late notice; an older one is stale; no way back is declared: final.
    expect(decide(canceledAt10, restored("2024-01-01T00:00:10Z"))).toEqual({ action: "ignore", reason: "invalid_transition" });
    expect(decide(canceledAt10, restored("2024-01-01T00:00:09Z"))).toEqual({ action: "ignore", reason: "stale" });
    expect(decide(canceledAt10, { ...restored("2024-01-01T00:00:11Z"), reopens: [] })).toEqual({
      action: "ignore",
      reason: "invalid_transition",
    });
    // Only the states it names: a failed payment stays failed.
    expect(decide({ ...canceledAt10, status: "failed" }, restored("2024-01-01T00:00:11Z")).action).toBe("ignore");
  });

  it("calls a repeat of the current state a duplicate in meaning", () => {
    expect(decide(paidAt10, { state: { status: "paid", amountRefunded: 0 }, at: t("2024-01-01T00:00:12Z") })).toEqual({
      action: "ignore",
      reason: "duplicate_in_meaning",
    });
  });
});
