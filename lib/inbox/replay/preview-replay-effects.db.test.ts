import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookFor, type HistoryStep, type PaymentFacts, type SimulatedProvider } from "@/lib/testing/gateway-events";
import { registerPaymentAndWake } from "@/lib/inbox/process/wake-waiting-events";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { testConfig } from "@/lib/testing/test-worker";
import { formatTime } from "../../time/format-time";
import { explainOutcome, explainOutcomes, loadOutcomeFacts } from "../queries/explain-outcome";
import { createGatewayClients } from "../../http/gateway-clients";
import { ingestEvent } from "../ingest/ingest-event";
import { previewReplayEffects } from "./preview-replay-effects";
import { processEvent, type ProcessDeps } from "../process/process-event";
import { replayable, replayEvents } from "./replay-events";
import { replayHistory } from "./replay-history";

// The replay dry run and the outcome sentences against a real database: events are ingested and
// processed by the worker's own function, the dry run is compared with what replaying then does.

let app: TestApp;
let deps: ProcessDeps;
const secrets: Partial<Record<SimulatedProvider, string>> = { stripe: TEST_SECRETS.stripe, standard: TEST_SECRETS.standard };

beforeAll(async () => {
  app = await createTestApp("replay_effects", { PAYMENT_SOURCE_STANDARD: "host", WORKER_MAX_ATTEMPTS: "1" });
  const config = testConfig(app.env);
  deps = { pool: app.pool, boss: app.boss, config, gateways: createGatewayClients(config), workerId: "test" };
});
afterAll(async () => app.close());

const facts = (chargeId: string): PaymentFacts => ({
  chargeId,
  amount: 1000,
  currency: "usd",
  customerId: `cus_${chargeId}`,
  customerEmail: `${chargeId}@example.com`,
});

async function sendWebhook(
  provider: SimulatedProvider,
  payment: PaymentFacts,
  kind: HistoryStep["kind"],
  occurredAtMs: number,
  amountRefunded = 0,
) {
  const webhook = webhookFor(provider, payment, { kind, amountRefunded, occurredAtMs }, secrets[provider]!);
  const outcome = await ingestEvent(
    { pool: app.pool, boss: app.boss, config: deps.config },
    { provider, rawBody: Buffer.from(webhook.body), headers: webhook.headers },
  );
  if (outcome.kind !== "stored") throw new Error(`not stored: ${JSON.stringify(outcome)}`);
  await processEvent(deps, outcome.inboxId);
  return outcome.inboxId;
}

const status = async (chargeId: string) =>
  (await app.pool.query("SELECT status, amount_refunded::int AS refunded FROM payments WHERE gateway_charge_id = $1", [chargeId])).rows[0];

describe("replay dry run and outcome sentences", () => {
  it("say why events were ignored or failed, then predict exactly what replaying them does", async () => {
    const base = Date.now() - 600_000;
    // A host-registered payment whose events came first: both fail (one attempt, not registered).
    const host = facts("ch_host");
    const hostPaid = await sendWebhook("standard", host, "succeeded", base);
    await sendWebhook("standard", host, "refund", base + 1000, 1000);
    // A gateway payment refunded, then its late "succeeded" (invalid) and a repeat of the refund (duplicate).
    const stripe = facts("ch_stripe");
    await sendWebhook("stripe", stripe, "succeeded", base);
    const refund = await sendWebhook("stripe", stripe, "refund", base + 2000, 1000);
    const late = await sendWebhook("stripe", stripe, "succeeded", base + 3000);
    expect(await status("ch_stripe")).toEqual({ status: "refunded", refunded: 1000 });

    const facts_ = await loadOutcomeFacts(app.pool, [hostPaid, late, refund]);
    expect(facts_.has(refund)).toBe(false); // processed: nothing to explain
    const refundEventId = (await app.pool.query("SELECT event_id FROM webhook_inbox WHERE id = $1", [refund])).rows[0].event_id as string;
    const refundAt = new Date(base + 2000);
    const sentences = await explainOutcomes(app.pool, [hostPaid, late], "UTC");
    expect(sentences.get(late)).toBe(
      `Ignored: the payment was already refunded by ${refundEventId.slice(0, 8)}…${refundEventId.slice(-4)} at ${formatTime(refundAt, "UTC", { date: false })}; refunded → paid is not allowed.`,
    );
    expect(sentences.get(hostPaid)).toBe(
      "Failed: your application had not registered payment ch_host when the retries ran out; replay once it is registered (POST /api/payments).",
    );

    await registerPaymentAndWake(
      { pool: app.pool, boss: app.boss, config: deps.config },
      { provider: "standard", chargeId: "ch_host", amount: 1000, currency: "usd" },
    );
    const filter = replayable({});
    const before = await app.pool.query("SELECT count(*)::int AS n FROM payment_transitions");
    const dryRun = await previewReplayEffects(app.pool, deps.config, filter);
    expect((await app.pool.query("SELECT count(*)::int AS n FROM payment_transitions")).rows[0]).toEqual(before.rows[0]);
    expect(dryRun.breakdown).toEqual(
      expect.arrayContaining([
        { provider: "standard", eventType: "payment.succeeded", status: "failed", events: 1 },
        { provider: "stripe", eventType: "charge.succeeded", status: "ignored", events: 1 },
      ]),
    );
    const effects = Object.fromEntries(
      dryRun.effects.map((effect) => [effect.chargeId, { from: effect.from, to: effect.to, refunded: effect.toRefunded }]),
    );
    expect(effects).toEqual({
      ch_host: { from: "pending", to: "refunded", refunded: 1000 },
      ch_stripe: { from: "refunded", to: "refunded", refunded: 1000 },
    });

    // Replay for real, process in dispatch order, and compare with the dry run.
    await replayEvents({ pool: app.pool, boss: app.boss, config: deps.config }, filter, { actor: "finance@example.com" });
    const { rows } = await app.pool.query<{ id: number }>("SELECT id FROM webhook_inbox WHERE status = 'pending' ORDER BY id");
    for (const row of rows) await processEvent(deps, row.id);
    for (const [chargeId, effect] of Object.entries(effects))
      expect(await status(chargeId)).toEqual({ status: effect.to, refunded: effect.refunded });

    // History: who replayed it and from which status; attempt numbers go on from before the replay.
    expect(await replayHistory(app.pool, hostPaid)).toEqual([
      { actor: "finance@example.com", replayedAt: expect.any(Date), runId: null, previousStatus: "failed" },
    ]);
    const attempts = await app.pool.query("SELECT attempt FROM processing_attempts WHERE inbox_id = $1 ORDER BY id", [hostPaid]);
    expect(attempts.rows.map((row) => row.attempt)).toEqual([1, 2]);
  });

  it("dry-runs the payments of the newest matching events when there are more than it shows", async () => {
    // Host-registered payments nobody registered: each event fails, one payment after the other.
    for (const chargeId of ["ch_sample_old", "ch_sample_mid", "ch_sample_new"])
      await sendWebhook("standard", facts(chargeId), "succeeded", Date.now() - 60_000);
    const dryRun = await previewReplayEffects(app.pool, deps.config, replayable({ provider: "standard" }), { paymentLimit: 2 });
    expect(dryRun.effects.map((effect) => effect.chargeId)).toEqual(["ch_sample_new", "ch_sample_mid"]);
    expect(dryRun.paymentsSampled).toBe(2);
  });

  it("words each failure from the recorded error", () => {
    const failed = (lastError: string) =>
      explainOutcome(
        {
          status: "failed",
          eventType: "charge.dispute.created",
          resourceId: "ch_1",
          ignoredReason: null,
          lastError,
          observed: null,
          prior: null,
        },
        "UTC",
      );
    expect(failed("GatewayHttpError: stripe answered 404 to GET /v1/charges/ch_1")).toBe(
      "Failed: the gateway answered 404 for the charge; replay once it exists there.",
    );
    expect(failed("TypeError: fetch failed: connect ECONNREFUSED 127.0.0.1:9")).toMatch(/^Failed: the gateway could not be reached/);
    expect(failed("ParseError: body is not JSON")).toBe(
      "Failed: the stored body could not be read (body is not JSON); replay after the driver is fixed.",
    );
    expect(failed("something new")).toBe("Failed: something new");
    expect(
      explainOutcome(
        {
          status: "ignored",
          eventType: "charge.expired",
          resourceId: "ch_1",
          ignoredReason: "uninteresting_type",
          lastError: null,
          observed: null,
          prior: null,
        },
        "UTC",
      ),
    ).toBe("Ignored: charge.expired is not a type that changes a payment.");
    expect(
      explainOutcome(
        { status: "processed", eventType: "x", resourceId: null, ignoredReason: null, lastError: null, observed: null, prior: null },
        "UTC",
      ),
    ).toBeNull();
  });
});
