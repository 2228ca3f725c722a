import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processEvents } from "../process/process-event";
import { replayEvents } from "../replay/replay-events";
import { REDACTED } from "../../providers/personal-data";
import { readFixture } from "../../testing/gateway-fixtures";
import { randomId, signedWebhook, stripeEvent } from "../../testing/gateway-events";
import { processDeps } from "../../testing/payment-events";
import { createTestApp, TEST_SECRETS, type TestApp } from "../../testing/test-app";
import { ingestEvent } from "./ingest-event";

// PII_AT_REST_STRIPE=redact: the signature is verified on the bytes as they came, and only the body
// with Stripe's personal-data paths redacted is stored; processing, search by customer id and
// replay work from it.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp("pii_at_rest", { PII_AT_REST_STRIPE: "redact" });
});
afterAll(async () => app.close());

describe("PII_AT_REST_<PROVIDER>=redact", () => {
  it("stores the redacted body, the original's SHA-256 and its verification time; the payment and a replay settle from it", async () => {
    const charge = readFixture<{ billing_details: Record<string, unknown> }>("stripe/charge.json");
    const chargeId = randomId("ch");
    const event = stripeEvent(
      { chargeId, amount: 2500, currency: "brl", customerId: "cus_keepme", customerEmail: "maria.souza@exemplo.com.br" },
      { kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() - 1000 },
    );
    Object.assign(event.data.object, {
      billing_details: { ...charge.billing_details, name: "Maria Souza", email: "maria.souza@exemplo.com.br", phone: "+5511912345678" },
    });
    const body = JSON.stringify(event);
    const outcome = await ingestEvent(
      { pool: app.pool, boss: app.boss, config: app.config },
      { provider: "stripe", rawBody: Buffer.from(body), headers: signedWebhook("stripe", event.id, body, TEST_SECRETS.stripe).headers },
    );
    expect(outcome.kind).toBe("stored");
    const inboxId = (outcome as { inboxId: number }).inboxId;
    const { rows } = await app.pool.query(
      "SELECT raw_body, payload, customer_id, customer_email, original_sha256, signature_verified_at FROM webhook_inbox WHERE id = $1",
      [inboxId],
    );
    const row = rows[0]!;
    expect(row.raw_body.toString()).not.toMatch(/Maria|maria\.souza|912345678/);
    expect(JSON.stringify(row.payload)).not.toMatch(/Maria|maria\.souza|912345678/);
    expect(row.payload.data.object.billing_details.email).toBe(REDACTED);
    expect(row).toMatchObject({
      customer_id: "cus_keepme",
      customer_email: REDACTED,
      original_sha256: createHash("sha256").update(body).digest("hex"),
    });
    expect(row.signature_verified_at).toBeInstanceOf(Date);

    expect(await processEvents(processDeps(app), [inboxId])).toEqual(["processed"]);
    const payment = async () =>
      (await app.pool.query("SELECT status, amount, customer_id, customer_email FROM payments WHERE gateway_charge_id = $1", [chargeId]))
        .rows;
    expect(await payment()).toEqual([{ status: "paid", amount: 2500, customer_id: "cus_keepme", customer_email: REDACTED }]);
    expect((await app.pool.query("SELECT count(*)::int AS n FROM customer_emails")).rows[0].n).toBe(0);

    expect(
      (await replayEvents({ pool: app.pool, boss: app.boss, config: app.config }, { statuses: ["processed"] }, { actor: "test" })).total,
    ).toBe(1);
    expect(await processEvents(processDeps(app), [inboxId])).toEqual(["processed"]);
    expect(await payment()).toEqual([{ status: "paid", amount: 2500, customer_id: "cus_keepme", customer_email: REDACTED }]);
  });
});
