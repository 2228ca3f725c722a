import { describe, expect, it } from "vitest";
import { decideChargeUpdate } from "../payments/apply-charge-update";
import { decide } from "../payments/state-machine";
import type { ChargeSnapshot } from "../canonical/charge-event";
import { pagarmeChargeCanceledAfterCapture } from "./fixtures/pagarme/charge-canceled-after-capture";
import { zoopTransactionVoidedAfterCapture } from "./fixtures/zoop/transaction-voided-after-capture";
import { pagarmeDriver } from "./pagarme";
import { zoopDriver } from "./zoop";

// A charge captured and later canceled gave the money back: the gateways' own payloads for it must
// move a paid payment to refunded, not leave it paid behind an ignored "canceled".

const refetchOf = (body: unknown) => async () => body;
const paid = { status: "paid" as const, amountRefunded: 0, lastEventAt: null };

function applied(snapshot: ChargeSnapshot) {
  return decide(paid, { state: { status: snapshot.status, amountRefunded: snapshot.amountRefunded ?? 0 }, at: null });
}

describe("cancellation after capture", () => {
  it("reads Zoop's recorded void of a captured transaction as a full refund", async () => {
    const snapshot = await zoopDriver.refetch!("e74786548f58452d9a62ee4d53ba0f87", refetchOf(zoopTransactionVoidedAfterCapture), {
      credentials: { apiKey: "zpk", marketplaceId: "foo" },
    });
    expect(snapshot).toMatchObject({ status: "refunded", amount: 500, amountRefunded: 500 });
    expect(applied(snapshot)).toMatchObject({ action: "apply", state: { status: "refunded", amountRefunded: 500 } });
  });

  it("reads a partial void of a captured Zoop transaction as a partial refund", async () => {
    const history = [
      ...zoopTransactionVoidedAfterCapture.history.slice(0, 2),
      { ...zoopTransactionVoidedAfterCapture.history[2]!, amount: "1.50" },
    ];
    const snapshot = await zoopDriver.refetch!(
      "e74786548f58452d9a62ee4d53ba0f87",
      refetchOf({ ...zoopTransactionVoidedAfterCapture, status: "succeeded", history }),
      {},
    );
    expect(snapshot).toMatchObject({ status: "partially_refunded", amountRefunded: 150 });
  });

  it("keeps a Zoop transaction canceled before capture canceled (no money moved)", async () => {
    const uncaptured = {
      ...zoopTransactionVoidedAfterCapture,
      captured: false,
      history: zoopTransactionVoidedAfterCapture.history.slice(0, 1),
    };
    expect((await zoopDriver.refetch!("e74786548f58452d9a62ee4d53ba0f87", refetchOf(uncaptured), {})).status).toBe("canceled");
  });

  it("reads Pagar.me's captured charge canceled in full, with no paid_amount, as a full refund", async () => {
    const snapshot = await pagarmeDriver.refetch!("ch_K3ePvLgTaTNVm8Qz", refetchOf(pagarmeChargeCanceledAfterCapture), {});
    expect(snapshot).toMatchObject({ status: "refunded", amount: 12356, amountRefunded: 12356 });
    expect(applied(snapshot)).toMatchObject({ action: "apply", state: { status: "refunded" } });
  });

  it("reads a captured Pagar.me charge canceled in part as a partial refund, and one never captured as canceled", async () => {
    const partial = await pagarmeDriver.refetch!(
      "ch_K3ePvLgTaTNVm8Qz",
      refetchOf({ ...pagarmeChargeCanceledAfterCapture, canceled_amount: 2356 }),
      {},
    );
    expect(partial).toMatchObject({ status: "partially_refunded", amountRefunded: 2356 });
    const neverCaptured = await pagarmeDriver.refetch!(
      "ch_K3ePvLgTaTNVm8Qz",
      refetchOf({ ...pagarmeChargeCanceledAfterCapture, paid_at: null }),
      {},
    );
    expect(neverCaptured.status).toBe("canceled");
  });

  it("moves a paid payment to refunded on a charge.refunded whose charge shows neither paid_at nor paid_amount", async () => {
    // The shape of a test-account charge.refunded a Pagar.me integrator published: the charge
    // canceled, canceled_amount equal to the amount, no trace of the capture. The charge alone reads
    // as a cancellation; the ledger knows the payment was paid, so the money went back.
    const { paid_at: _paidAt, ...refundedCharge } = pagarmeChargeCanceledAfterCapture;
    const body = Buffer.from(
      JSON.stringify({ id: "hook_refunded_1", type: "charge.refunded", created_at: "2026-11-05T09:41:27Z", data: refundedCharge }),
    );
    const fromEvent = pagarmeDriver.parse(body, { headers: {}, query: new URLSearchParams(), timeZone: "UTC" }).charge!;
    const refetched = await pagarmeDriver.refetch!(refundedCharge.id, refetchOf(refundedCharge), {});
    expect(refetched).toMatchObject({ status: "canceled", amountRefunded: 12356 });
    for (const snapshot of [fromEvent, refetched]) {
      expect(decideChargeUpdate(paid, snapshot, null)).toEqual({ action: "apply", state: { status: "refunded", amountRefunded: 12356 } });
    }
    expect(decideChargeUpdate(paid, { ...refetched, amountRefunded: 2356 }, null)).toEqual({
      action: "apply",
      state: { status: "partially_refunded", amountRefunded: 2356 },
    });
    // Never captured (the ledger says pending): a cancellation, no money moved.
    expect(decideChargeUpdate({ ...paid, status: "pending" }, refetched, null)).toMatchObject({
      action: "apply",
      state: { status: "canceled" },
    });
  });

  it("reads a charge.canceled webhook carrying the captured charge as a refund", () => {
    const body = Buffer.from(
      JSON.stringify({
        id: "hook_canceled_1",
        type: "charge.canceled",
        created_at: "2026-11-05T09:41:27Z",
        data: pagarmeChargeCanceledAfterCapture,
      }),
    );
    const event = pagarmeDriver.parse(body, { headers: {}, query: new URLSearchParams(), timeZone: "UTC" });
    expect(event.charge).toMatchObject({ status: "refunded", amountRefunded: 12356 });
  });
});
