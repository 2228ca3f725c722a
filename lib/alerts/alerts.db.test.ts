import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";
import { testConfig } from "@/lib/testing/test-worker";
import { createGatewayClients } from "../http/gateway-clients";
import { recordHeartbeat } from "../inbox/process/worker-heartbeats";
import { createDestination, setDestinationEnabled } from "../destinations/manage-destinations";
import { checkAlerts, circuitOpenAlert, destinationGoneAlert, findAlerts, findWorkerDownAlert } from "./check-alerts";
import { listAlertStates } from "./list-alert-states";
import { listAlerts } from "./list-alerts";
import { sendAlert, type AlertOutcome } from "./send-alert";

// Alerts delivered to a real local HTTP receiver, conditions seeded in a real database.

let app: TestApp;
let receiver: Server;
let receiverUrl: string;
let received: { text: string }[];
let answerStatus: number;

beforeAll(async () => {
  app = await createTestApp("alerts");
  receiver = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      if (request.headers["content-type"] === "application/json") received.push(JSON.parse(body));
      response.writeHead(answerStatus).end("ok");
    });
  });
  await new Promise<void>((listening) => receiver.listen(0, "127.0.0.1", listening));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/alerts`;
});
afterAll(async () => {
  receiver.close();
  await app.close();
});
beforeEach(async () => {
  await app.pool.query("TRUNCATE webhook_inbox, audit_log CASCADE");
  received = [];
  answerStatus = 200;
});

const deps = (overrides: Record<string, string> = {}) => ({
  pool: app.pool,
  config: testConfig(app.env, {
    ALERT_WEBHOOK_URL: receiverUrl,
    ALERT_WINDOW_MINUTES: "15",
    ALERT_PENDING_AGE_MINUTES: "10",
    ...overrides,
  }),
});

let seq = 0;
async function seed(provider: string, status: string, receivedMinutesAgo: number, count = 1) {
  for (let i = 0; i < count; i++) {
    seq += 1;
    await app.pool.query(
      `INSERT INTO webhook_inbox (provider, event_id, event_type, payload, raw_body, status, received_at, processed_at, ignored_reason)
       VALUES ($1, $2, 'charge.succeeded', '{"customer_email": "secret.person@example.com"}', '\\x7b7d', $3::text,
               now() - make_interval(mins => $4), CASE WHEN $3::text = 'pending' THEN NULL ELSE now() END,
               CASE WHEN $3::text = 'ignored' THEN 'stale' END)`,
      [provider, `evt_alert_${seq}`, status, receivedMinutesAgo],
    );
  }
}

describe("alerts", () => {
  it("posts a Slack-compatible text on a failed event, once per kind and provider per window, audited", async () => {
    await seed("stripe", "failed", 1);
    const first = await checkAlerts(deps());
    expect(first).toEqual([{ sent: true, delivered: true }]);
    expect(received).toHaveLength(1);
    expect(received[0]!.text).toMatch(/stripe: 1 event failed/);
    expect(received[0]!.text).not.toContain("secret.person");

    // Rate limit: more failures within the window send nothing more.
    await seed("stripe", "failed", 0, 3);
    expect(await checkAlerts(deps())).toEqual([{ sent: false, reason: "rate_limited" }]);
    expect(received).toHaveLength(1);

    // Another provider has a budget of its own.
    await seed("asaas", "failed", 0);
    await checkAlerts(deps());
    expect(received.map((alert) => alert.text.split(":")[0])).toEqual(["[webhook-inbox] stripe", "[webhook-inbox] asaas"]);

    // Once the window has passed, a failure alerts again.
    await app.pool.query("UPDATE audit_log SET at = at - interval '16 minutes' WHERE action = 'alert'");
    await checkAlerts(deps());
    expect(received).toHaveLength(4);

    const listed = await listAlerts(app.pool);
    expect(listed).toHaveLength(4);
    expect(listed[0]).toMatchObject({ kind: "event_failed", delivered: true, error: null });
    const { rows } = await app.pool.query("SELECT DISTINCT actor FROM audit_log WHERE action = 'alert'");
    expect(rows).toEqual([{ actor: "system:alerts" }]);
  });

  it("names the accounts besides the default one whose events failed", async () => {
    await app.pool.query(
      `INSERT INTO webhook_inbox (provider, event_id, event_type, raw_body, status, received_at, processed_at, gateway_account)
       VALUES ('zoop', 'evt_alert_account_1', 'transaction.succeeded', '\\x7b7d', 'failed', now(), now(), 'loja-b'),
              ('zoop', 'evt_alert_account_2', 'transaction.succeeded', '\\x7b7d', 'failed', now(), now(), 'loja-a'),
              ('zoop', 'evt_alert_account_3', 'transaction.succeeded', '\\x7b7d', 'failed', now(), now(), 'default')`,
    );
    const alerts = await findAlerts({ pool: app.pool, config: app.config });
    expect(alerts.find((alert) => alert.kind === "event_failed" && alert.provider === "zoop")?.text).toContain(
      "zoop: 3 events failed in the last 15 min (accounts: loja-a, loja-b) and need a person",
    );
  });

  it("sends one alert when several processes race for the same one", async () => {
    const alert = circuitOpenAlert("stripe", 30);
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => sendAlert(deps(), alert)));
    expect(outcomes.filter((outcome) => outcome.sent)).toHaveLength(1);
    expect(received).toHaveLength(1);
  });

  it("alerts on a stale pending backlog and on an ignored-ratio jump against the provider's week", async () => {
    await seed("pagarme", "pending", 30);
    await seed("zoop", "processed", 2 * 24 * 60, 120);
    await seed("zoop", "ignored", 10, 25);
    await checkAlerts(deps());
    expect(received.map((alert) => alert.text).sort()).toEqual([
      expect.stringMatching(/^\[webhook-inbox\] pagarme: the oldest of 1 pending event has waited 30 min/),
      expect.stringMatching(/^\[webhook-inbox\] zoop: 100% of the last hour's events were ignored, against 0% over its week/),
    ]);
    // Below the threshold, no alert.
    await app.pool.query("TRUNCATE webhook_inbox, audit_log CASCADE");
    await seed("pagarme", "pending", 5);
    expect(await checkAlerts(deps())).toEqual([]);
  });

  it("alerts when a refetch circuit opens", async () => {
    const config = deps({ STRIPE_API_URL: "http://127.0.0.1:1", REFETCH_BREAKER_FAILURES: "2", REFETCH_TIMEOUT_MS: "500" }).config;
    const sending: Promise<AlertOutcome>[] = [];
    const gateways = createGatewayClients(config, (provider) =>
      sending.push(sendAlert({ pool: app.pool, config }, circuitOpenAlert(provider, 30))),
    );
    const client = gateways("stripe")!;
    await expect(client.fetchJson("/v1/charges/ch_1")).rejects.toThrow();
    expect(sending).toHaveLength(0);
    await expect(client.fetchJson("/v1/charges/ch_1")).rejects.toThrow();
    await expect(client.fetchJson("/v1/charges/ch_1")).rejects.toThrow(/circuit/);
    expect(await Promise.all(sending)).toEqual([{ sent: true, delivered: true }]);
    expect(received[0]!.text).toMatch(/stripe: the refetch circuit opened/);
  });

  it("records an alert the receiver refused, and one with no receiver configured", async () => {
    answerStatus = 500;
    expect(await sendAlert(deps(), circuitOpenAlert("stripe", 30))).toEqual({
      sent: true,
      delivered: false,
      error: "the alert webhook answered 500",
    });
    expect(await sendAlert(deps({ ALERT_WEBHOOK_URL: "" }), circuitOpenAlert("asaas", 30))).toEqual({
      sent: true,
      delivered: false,
      error: "ALERT_WEBHOOK_URL is not set",
    });
    expect((await listAlerts(app.pool)).map((alert) => [alert.provider, alert.delivered])).toEqual([
      ["asaas", false],
      ["stripe", false],
    ]);
  });

  it("alerts when events land in the inbox's default partition (their month has none)", async () => {
    await seed("stripe", "processed", 1);
    expect(await checkAlerts(deps())).toEqual([]);
    await app.pool.query(
      `INSERT INTO webhook_inbox (provider, event_id, event_type, raw_body, status, received_at)
       VALUES ('stripe', 'evt_far_future', 'charge.succeeded', '\\x7b7d', 'processed', now() + interval '5 years')`,
    );
    await checkAlerts(deps());
    expect(received.map((message) => message.text)).toEqual([
      expect.stringMatching(/^\[webhook-inbox\] 1 event was stored in the inbox's default partition/),
    ]);
  });
});

describe("worker and delivery alerts", () => {
  it("says no worker is alive while events wait and no heartbeat is recent, and not once one beats", async () => {
    await app.pool.query("TRUNCATE worker_heartbeats");
    expect(await findWorkerDownAlert(deps())).toBeNull(); // nothing waits
    await seed("stripe", "pending", 3, 12);
    await app.pool.query("INSERT INTO worker_heartbeats (worker, beat_at) VALUES ('host:7', now() - interval '3 minutes')");
    const alert = await findWorkerDownAlert(deps());
    expect(alert).toMatchObject({ kind: "worker_down", provider: "all" });
    expect(alert!.text).toMatch(/no worker alive: 12 events pending, the last worker heartbeat \d+s ago/);
    await recordHeartbeat(app.pool, "host:8");
    expect(await findWorkerDownAlert(deps())).toBeNull();
  });

  it("says a steady provider has been silent for longer than usual", async () => {
    // 200 deliveries over the week before the last day: then nothing for a day.
    await seed("stripe", "processed", 24 * 60 + 30, 200);
    const alerts = await findAlerts(deps());
    expect(alerts.filter((alert) => alert.kind === "provider_silent").map((alert) => alert.provider)).toEqual(["stripe"]);
    await seed("stripe", "processed", 1, 1);
    expect((await findAlerts(deps())).filter((alert) => alert.kind === "provider_silent")).toEqual([]);
  });

  it("says a destination answered 410 Gone, by name and id, active on the Alerts page until it is switched on again", async () => {
    const { destination, secret } = await createDestination(
      app.pool,
      { name: "ledger", url: "http://127.0.0.1:9/hooks" },
      { actor: "admin@example.com" },
    );
    // As the delivery worker's settlement leaves it (lib/destinations/deliver-changes.ts).
    await app.pool.query("UPDATE destinations SET enabled = false, disabled_reason = 'the destination answered 410 Gone' WHERE id = $1", [
      destination.id,
    ]);
    const alert = destinationGoneAlert({ id: destination.id, name: destination.name });
    expect(await sendAlert(deps(), alert)).toEqual({ sent: true, delivered: true });
    expect(await sendAlert(deps(), alert)).toEqual({ sent: false, reason: "rate_limited" });
    expect(received.map(({ text }) => text)).toEqual([
      `[webhook-inbox] destination ledger (id ${destination.id}) answered 410 Gone and was switched off; its pending deliveries wait until it is switched on again from the Destinations page.`,
    ]);
    expect(received[0]!.text).not.toContain(secret);
    const state = async () => (await listAlertStates(deps())).find(({ kind }) => kind === "destination_gone")?.state;
    expect(await state()).toBe("active");
    await setDestinationEnabled(app.pool, destination.id, true, { actor: "admin@example.com" });
    expect(await state()).toBe("resolved");
  });
});
