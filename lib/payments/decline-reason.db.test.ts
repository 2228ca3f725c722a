import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { withTransaction } from "@/lib/db/pool";
import { getPaymentView } from "@/lib/console/get-payment-view";
import { paymentsCsv } from "@/lib/console/export-csv";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";
import { readFixture } from "@/lib/testing/gateway-fixtures";
import { asaasDriver } from "../providers/asaas";
import type { ChargeSnapshot } from "../canonical/charge-event";
import { changeFeedQuerySchema, createChangeFeed, readChangeFeed } from "../outbox/read-change-feed";
import { applyChargeUpdates } from "./apply-charge-update";
import { getHostPayment } from "./get-payment";

// A refusal is stored with the payment while it has not succeeded and cleared once it does: an Asaas
// card refused (the payment stays open to another try, as the refetch shows it) and then paid, read
// through the driver as the worker reads it.

let app: TestApp;
let inboxId = 0;

beforeAll(async () => {
  app = await createTestApp("decline_reason");
});
afterAll(async () => app.close());
beforeEach(async () => {
  await app.pool.query("TRUNCATE webhook_inbox, payments, payment_transitions, payment_changes CASCADE");
});

type Event = { event: string; payment: Record<string, unknown> & { id: string } };
const received = readFixture<Event>("asaas/payment-received-webhook.json");
const chargeId = received.payment.id;

/** What GET /payments/{id} answers with `status`, fetched for an event of `eventType`. */
const refetched = (status: string, eventType: string) =>
  asaasDriver.refetch!(chargeId, async () => ({ ...received.payment, status }), { eventType });

async function observe(snapshot: ChargeSnapshot, eventType: string) {
  const eventId = `evt_decline_${++inboxId}`;
  const { rows } = await app.pool.query<{ id: number }>(
    `INSERT INTO webhook_inbox (provider, event_id, event_id_derived, event_type, raw_body, headers, status)
     VALUES ('asaas', $1, false, $2, '{}'::bytea, '{}'::jsonb, 'pending') RETURNING id`,
    [eventId, eventType],
  );
  const [result] = await withTransaction(app.pool, (tx) =>
    applyChargeUpdates(tx, [
      {
        provider: "asaas",
        chargeId,
        snapshot,
        at: null,
        inboxId: rows[0]!.id,
        cause: { eventId, eventType, occurredAt: null },
        source: "refetch",
        createIfMissing: true,
      },
    ]),
  );
  return result;
}

async function stored() {
  const { rows } = await app.pool.query<{ id: number; status: string; decline_reason: unknown }>(
    "SELECT id, status, decline_reason FROM payments WHERE gateway_charge_id = $1",
    [chargeId],
  );
  return rows[0]!;
}

async function csvOf(): Promise<string[][]> {
  const lines: string[][] = [];
  for await (const line of paymentsCsv(app.pool, "admin", {})) lines.push(line.trimEnd().split(","));
  return lines;
}

describe("a payment's decline reason", () => {
  it("is stored from a refused attempt, shown in words and exported, and cleared once the payment is paid", async () => {
    await observe(await refetched("PENDING", "PAYMENT_CREDIT_CARD_CAPTURE_REFUSED"), "PAYMENT_CREDIT_CARD_CAPTURE_REFUSED");
    const refused = await stored();
    expect(refused).toMatchObject({
      status: "pending",
      decline_reason: { code: "PAYMENT_CREDIT_CARD_CAPTURE_REFUSED", message: "Credit card payment failure" },
    });
    expect((await getPaymentView(app.pool, "admin", refused.id))?.decline).toBe(
      "Declined: Credit card payment failure (code PAYMENT_CREDIT_CARD_CAPTURE_REFUSED)",
    );
    const [header, row] = await csvOf();
    expect(row![header!.indexOf("decline_code")]).toBe("PAYMENT_CREDIT_CARD_CAPTURE_REFUSED");
    expect(row![header!.indexOf("decline_message")]).toBe("Credit card payment failure");

    await observe(await refetched("RECEIVED", "PAYMENT_RECEIVED"), "PAYMENT_RECEIVED");
    expect(await stored()).toMatchObject({ status: "paid", decline_reason: null });
    expect((await getHostPayment(app.pool, "asaas", chargeId))?.declineReason).toBeNull();
    expect((await getPaymentView(app.pool, "admin", refused.id))?.decline).toBeNull();
    const [header2, row2] = await csvOf();
    expect(row2![header2!.indexOf("decline_code")]).toBe("");
  });

  it("reaches the host: the lookup has the payment's, each feed entry its version's, both keys always there", async () => {
    const refusal = { code: "PAYMENT_CREDIT_CARD_CAPTURE_REFUSED", message: "Credit card payment failure" };
    await observe(await refetched("PENDING", "PAYMENT_CREDIT_CARD_CAPTURE_REFUSED"), "PAYMENT_CREDIT_CARD_CAPTURE_REFUSED");
    expect(await getHostPayment(app.pool, "asaas", chargeId)).toMatchObject({ status: "pending", declineReason: refusal });
    const failed = {
      ...(await refetched("PENDING", "PAYMENT_UPDATED")),
      status: "failed" as const,
      declineReason: { message: "Saldo insuficiente" },
    };
    await observe(failed, "PAYMENT_UPDATED");
    expect(await getHostPayment(app.pool, "asaas", chargeId)).toMatchObject({
      status: "failed",
      declineReason: { code: null, message: "Saldo insuficiente" },
    });
    const { data } = await readChangeFeed(createChangeFeed(app.pool), changeFeedQuerySchema.parse({ limit: "10" }));
    expect(data.map(({ version, status, declineReason }) => ({ version, status, declineReason }))).toEqual([
      { version: 1, status: "pending", declineReason: refusal },
      { version: 2, status: "failed", declineReason: { code: null, message: "Saldo insuficiente" } },
    ]);
  });

  it("is kept by a later observation that says nothing of it while the payment has not succeeded", async () => {
    await observe(await refetched("PENDING", "PAYMENT_REPROVED_BY_RISK_ANALYSIS"), "PAYMENT_REPROVED_BY_RISK_ANALYSIS");
    await observe({ ...(await refetched("PENDING", "PAYMENT_UPDATED")), status: "failed" }, "PAYMENT_UPDATED");
    expect(await stored()).toMatchObject({ status: "failed", decline_reason: { code: "PAYMENT_REPROVED_BY_RISK_ANALYSIS" } });
  });

  it("is never set on a payment created paid", async () => {
    await observe({ status: "paid", amount: 100, declineReason: { code: "stale" } }, "PAYMENT_RECEIVED");
    expect((await stored()).decline_reason).toBeNull();
  });
});
