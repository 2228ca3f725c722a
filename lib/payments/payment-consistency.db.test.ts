import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { withTransaction } from "@/lib/db/pool";
import { getPaymentView } from "@/lib/console/get-payment-view";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";
import type { ChargeSnapshot } from "../canonical/charge-event";
import { applyChargeUpdates } from "./apply-charge-update";
import { statusContradiction } from "./payment-consistency";
import type { PaymentStatus } from "./state-machine";

// The ledger never stores a status its own amounts contradict: each observation below carries
// amounts that, written as observed, would (a cancellation's canceled amount, a "refunded" with no
// figure, a won dispute on a partly refunded payment). Written through the worker's one writer, the
// payment, the change the host is told and the payment page all tell one story.

let app: TestApp;
let inboxId = 0;

beforeAll(async () => {
  app = await createTestApp("payment_consistency");
});
afterAll(async () => app.close());
beforeEach(async () => {
  await app.pool.query("TRUNCATE webhook_inbox, payments, payment_transitions, payment_changes CASCADE");
});

async function observe(chargeId: string, snapshot: ChargeSnapshot) {
  // The ledger names the inbox event behind each effect: one per observation.
  const { rows } = await app.pool.query<{ id: number }>(
    `INSERT INTO webhook_inbox (provider, event_id, event_id_derived, event_type, raw_body, headers, status)
     VALUES ('stripe', $1, false, 'charge.updated', '{}'::bytea, '{}'::jsonb, 'pending') RETURNING id`,
    [`evt_consistency_${++inboxId}`],
  );
  const [result] = await withTransaction(app.pool, (tx) =>
    applyChargeUpdates(tx, [
      {
        provider: "stripe",
        chargeId,
        snapshot: { currency: "usd", ...snapshot },
        at: null,
        inboxId: rows[0]!.id,
        cause: { eventId: `evt_consistency_${inboxId}`, eventType: "charge.updated", occurredAt: null },
        source: "event",
        createIfMissing: true,
      },
    ]),
  );
  return result;
}

async function stored(chargeId: string) {
  const { rows } = await app.pool.query<{ id: number; status: PaymentStatus; amount: number | null; amount_refunded: number }>(
    "SELECT id, status, amount, amount_refunded FROM payments WHERE gateway_charge_id = $1",
    [chargeId],
  );
  return rows[0]!;
}

/** What contradicts its amounts, in the payments, the changes pushed to the host and the payment pages. */
async function contradictions(): Promise<string[]> {
  const { rows } = await app.pool.query<{ id: number; status: PaymentStatus; amount: number | null; amount_refunded: number }>(
    `SELECT id, status, amount, amount_refunded FROM payments
     UNION ALL SELECT payment_id, status, amount, amount_refunded FROM payment_changes`,
  );
  const pages = await Promise.all(
    (await app.pool.query<{ id: number }>("SELECT id FROM payments")).rows.map(
      async ({ id }) => (await getPaymentView(app.pool, "admin", id))!,
    ),
  );
  return [
    ...rows.map((row) => statusContradiction({ status: row.status, amount: row.amount, amountRefunded: row.amount_refunded })),
    ...pages.map(({ payment }) =>
      statusContradiction({ status: payment.status as PaymentStatus, amount: payment.amount, amountRefunded: payment.amountRefunded }),
    ),
  ].filter((found): found is string => found !== null);
}

describe("a payment's status and its amounts", () => {
  it("stores a cancellation without the amount it canceled as a refund", async () => {
    expect(await observe("ch_voided", { status: "canceled", amount: 33950, amountRefunded: 33950 })).toEqual({ outcome: "processed" });
    expect(await stored("ch_voided")).toMatchObject({ status: "canceled", amount: 33950, amount_refunded: 0 });
    await observe("ch_later_voided", { status: "pending", amount: 500 });
    await observe("ch_later_voided", { status: "canceled", amount: 500, amountRefunded: 500 });
    expect(await stored("ch_later_voided")).toMatchObject({ status: "canceled", amount_refunded: 0 });
    expect(await contradictions()).toEqual([]);
  });

  it("stores a refund whose figure the observation lacks as the whole amount", async () => {
    await observe("ch_refunded", { status: "paid", amount: 1999 });
    await observe("ch_refunded", { status: "refunded" });
    expect(await stored("ch_refunded")).toMatchObject({ status: "refunded", amount_refunded: 1999 });
    await observe("ch_refunded_first", { status: "refunded", amount: 700 });
    expect(await stored("ch_refunded_first")).toMatchObject({ status: "refunded", amount_refunded: 700 });
    expect(await contradictions()).toEqual([]);
  });

  it("returns a won dispute on a partly refunded payment to partially refunded, not paid", async () => {
    await observe("ch_dispute", { status: "paid", amount: 1000 });
    await observe("ch_dispute", { status: "partially_refunded", amount: 1000, amountRefunded: 300 });
    await observe("ch_dispute", { status: "disputed" });
    // The dispute won: the charge is reinstated, with what had gone back before.
    await observe("ch_dispute", { status: "paid" });
    expect(await stored("ch_dispute")).toMatchObject({ status: "partially_refunded", amount_refunded: 300 });
    expect(await contradictions()).toEqual([]);
  });

  it("moves a payment held canceled to the refund the gateway later shows, with its amount", async () => {
    await observe("ch_crossed", { status: "canceled", amount: 21734, amountRefunded: 21734 });
    await observe("ch_crossed", { status: "refunded", amount: 21734, amountRefunded: 21734 });
    expect(await stored("ch_crossed")).toMatchObject({ status: "refunded", amount_refunded: 21734 });
    const { rows } = await app.pool.query("SELECT previous_status, status, amount_refunded FROM payment_changes ORDER BY id");
    expect(rows).toEqual([
      { previous_status: null, status: "canceled", amount_refunded: 0 },
      { previous_status: "canceled", status: "refunded", amount_refunded: 21734 },
    ]);
    expect(await contradictions()).toEqual([]);
  });
});
