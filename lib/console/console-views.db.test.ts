import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookFor, type HistoryStep, type PaymentFacts } from "@/lib/testing/gateway-events";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { testConfig } from "@/lib/testing/test-worker";
import { createGatewayClients } from "../http/gateway-clients";
import { ingestEvent } from "../inbox/ingest/ingest-event";
import { processEvent, type ProcessDeps } from "../inbox/process/process-event";
import { parseFilterParams } from "./event-filter-params";
import { getCustomerView } from "./get-customer-view";
import { getEventView } from "./get-event-view";
import { getEventsView } from "./get-events-view";
import { getReplayPreviewView } from "./get-replay-preview-view";
import { getReplayRunView } from "./get-replay-run-view";
import { getReplaysView } from "./get-replays-view";

// The console's view functions against a real database, fed by gateway-shaped webhooks the worker's
// own code ingests and processes.

let app: TestApp;
let deps: ProcessDeps;

beforeAll(async () => {
  app = await createTestApp("console_views");
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

/** Stores a Stripe webhook; processes it, or leaves it with `status` as if its processing had ended so. */
async function stripeEvent(
  chargeId: string,
  kind: HistoryStep["kind"],
  occurredAtMs: number,
  status?: "failed" | "ignored",
  customerEmail = `${chargeId}@example.com`,
) {
  const webhook = webhookFor(
    "stripe",
    { ...facts(chargeId), customerEmail },
    { kind, amountRefunded: 0, occurredAtMs },
    TEST_SECRETS.stripe,
  );
  const outcome = await ingestEvent(
    { pool: app.pool, boss: app.boss, config: deps.config },
    { provider: "stripe", rawBody: Buffer.from(webhook.body), headers: webhook.headers },
  );
  if (outcome.kind !== "stored") throw new Error(`not stored: ${JSON.stringify(outcome)}`);
  if (status) await app.pool.query("UPDATE webhook_inbox SET status = $2 WHERE id = $1", [outcome.inboxId, status]);
  else await processEvent(deps, outcome.inboxId);
  return outcome.inboxId;
}

describe("bulk replay views", () => {
  it("sums the dry run up: would change, no change, decided at replay time (refetch-first types)", async () => {
    const base = Date.now() - 600_000;
    await stripeEvent("ch_new", "succeeded", base, "failed"); // no payment yet: the replay creates it paid
    await stripeEvent("ch_paid", "succeeded", base);
    await stripeEvent("ch_paid", "succeeded", base + 1000, "ignored"); // the same news again
    await stripeEvent("ch_disputed", "succeeded", base);
    await stripeEvent("ch_disputed", "dispute_opened", base + 1000, "failed"); // Stripe disputes are refetched by default

    const view = await getReplayPreviewView(app.pool, deps.config, { provider: "stripe" });
    expect(view.total).toBe(3);
    expect(view.outcomes).toEqual({ changes: 1, no_change: 1, at_replay: 1, blocked: 0 });
    expect(Object.fromEntries(view.effects.map((effect) => [effect.chargeId, effect.outcome]))).toEqual({
      ch_new: "changes",
      ch_paid: "no_change",
      ch_disputed: "at_replay",
    });
  });

  it("keeps a run running while its events are pending, though its job has put them all back", async () => {
    const { rows: events } = await app.pool.query<{ id: number }>(
      "SELECT id FROM webhook_inbox WHERE status IN ('failed', 'ignored') ORDER BY id",
    );
    const { rows } = await app.pool.query<{ id: number }>(
      "INSERT INTO replay_runs (actor, filter, expected, replayed, status, finished_at) VALUES ('finance@example.com', '{}', 3, 3, 'done', now()) RETURNING id",
    );
    const runId = rows[0]!.id;
    await app.pool.query(
      `INSERT INTO event_replays (inbox_id, run_id, actor, previous_status) SELECT unnest($1::bigint[]), $2, 'finance@example.com', 'failed'`,
      [events.map((event) => event.id), runId],
    );
    await app.pool.query("UPDATE webhook_inbox SET status = 'pending' WHERE id = ANY($1)", [events.map((event) => event.id)]);
    expect((await getReplayRunView(app.pool, runId))!.state).toEqual({ status: "running", label: "running: 3 of 3 pending" });
    expect((await getReplaysView(app.pool, {})).runs.map((run) => run.state.status)).toEqual(["running"]);

    // The worker processes them; the dispute waits for the Stripe API it must fetch from.
    for (const event of events) await processEvent(deps, event.id);
    expect((await getReplayRunView(app.pool, runId))!.state).toEqual({ status: "running", label: "running: 1 of 3 pending" });
    await app.pool.query("UPDATE webhook_inbox SET status = 'failed' WHERE id = ANY($1) AND status = 'pending'", [
      events.map((event) => event.id),
    ]);
    expect((await getReplayRunView(app.pool, runId))!.state).toEqual({ status: "done", label: "done: 0 of 3 pending" });
    expect(await getReplayRunView(app.pool, runId + 1000)).toBeNull();
  });
});

describe("event view", () => {
  it("tells a role without Replay who can replay a failed event, and says nothing of it to those who can", async () => {
    const id = await stripeEvent("ch_support", "succeeded", Date.now() - 60_000, "failed");
    const words = "Your role can't replay events; finance or an admin can: send them this page's address.";
    expect((await getEventView(app.pool, "support", id, "UTC"))!.replayBy).toBe(words);
    expect((await getEventView(app.pool, "viewer", id, "UTC"))!.replayBy).toBe(words);
    expect((await getEventView(app.pool, "finance", id, "UTC"))!.replayBy).toBeNull();
    await app.pool.query("UPDATE webhook_inbox SET status = 'pending' WHERE id = $1", [id]);
    await processEvent(deps, id);
    expect((await getEventView(app.pool, "support", id, "UTC"))!.replayBy).toBeNull(); // processed: nothing to replay
  });
});

describe("customer view", () => {
  it("says how many of the customer's events have no payment yet, and links to exactly those", async () => {
    const at = Date.now() - 60_000;
    await stripeEvent("ch_c1", "succeeded", at, undefined, "cust@example.com");
    for (const chargeId of ["ch_c2", "ch_c3", "ch_c4"]) await stripeEvent(chargeId, "succeeded", at, "failed", "cust@example.com");

    const view = (await getCustomerView(app.pool, "support", "cust@example.com", "UTC"))!;
    expect(view.payments.map((payment) => payment.chargeId)).toEqual(["ch_c1"]);
    expect(view.withoutPayment).toEqual({
      sentence: "3 events for this customer have no payment yet",
      href: "/events?customer=cust%40example.com&payment=none",
    });
    const parsed = parseFilterParams(Object.fromEntries(new URL(view.withoutPayment!.href, "http://console").searchParams));
    if (!parsed.ok) throw new Error(parsed.message);
    const list = await getEventsView(app.pool, "support", { filter: parsed.filter, sort: parsed.sort, pageSize: 50, zone: "UTC" });
    if (!list.ok) throw new Error(list.message);
    expect(list.rows.map((row) => row.resourceId).sort()).toEqual(["ch_c2", "ch_c3", "ch_c4"]);
    // A viewer may not filter by customer: refused in words, not an empty list.
    expect((await getEventsView(app.pool, "viewer", { filter: parsed.filter, sort: parsed.sort, pageSize: 50, zone: "UTC" })).ok).toBe(
      false,
    );

    // A customer whose only events have no payment still has a page.
    await stripeEvent("ch_lonely", "succeeded", at, "failed", "lonely@example.com");
    const lonely = (await getCustomerView(app.pool, "support", "lonely@example.com", "UTC"))!;
    expect(lonely.payments).toEqual([]);
    expect(lonely.withoutPayment?.sentence).toBe("1 event for this customer has no payment yet");
    expect(await getCustomerView(app.pool, "support", "nobody@example.com", "UTC")).toBeNull();
  });
});
