import type { NextRequest } from "next/server";
import parsePrometheusTextFormat, { type PrometheusFamily } from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedWebhook, stripeEvent } from "@/lib/testing/gateway-events";
import { createGatewayClient } from "@/lib/http/gateway-client";
import { signStripe } from "@/lib/providers/stripe";
import { TEST_SECRETS } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import { startWebAndWorker, type WebAndWorker } from "@/e2e/harness/web-runtime";
import { GONE_REASON } from "../destinations/deliver-changes";
import { recordWorkerStart, recordWorkerStopping } from "../inbox/process/worker-heartbeats";
import { createDestination } from "../destinations/manage-destinations";
import { checkMetricsAccess, renderMetrics } from "../ops/render-metrics";
import { PENDING_ACCOUNTS_SHOWN } from "./metrics";
import { serveMetrics } from "../ops/serve-metrics";

// The web endpoint through its real route handler and the worker's own endpoint over HTTP, both
// parsed with an independent Prometheus text-format parser (parse-prometheus-text-format). That
// parser merges labelled histograms into one, so histogram counts are read from their `_count` line.

const TOKEN = "metrics-token-for-tests-0123";
let web: WebAndWorker;
let GET: (request: NextRequest) => Promise<Response>;

beforeAll(async () => {
  web = await startWebAndWorker("metrics", { METRICS_TOKEN: TOKEN });
  ({ GET } = await import("@/app/api/metrics/route"));
});
afterAll(async () => web.close());

const sendWebhook = (body: string, headers: Record<string, string>) => web.postWebhook("stripe", body, headers);

async function scrape(authorization?: string) {
  const { NextRequest } = await import("next/server");
  return GET(new NextRequest("http://localhost/api/metrics", { headers: authorization ? { authorization } : {} }));
}

function family(families: PrometheusFamily[], name: string): PrometheusFamily {
  const found = families.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no metric ${name}`);
  return found;
}

function sample(families: PrometheusFamily[], name: string, labels: Record<string, string> = {}): number {
  const match = family(families, name).metrics.find((metric) =>
    Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value),
  );
  if (!match) throw new Error(`no ${name} sample with ${JSON.stringify(labels)}`);
  return Number(match.value);
}

function histogramCount(text: string, name: string, labels: Record<string, string>): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = text
    .split("\n")
    .find((candidate) => candidate.startsWith(`${name}_count{`) && wanted.every((label) => candidate.includes(label)));
  if (!line) throw new Error(`no ${name}_count with ${JSON.stringify(labels)}`);
  return Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("GET /api/metrics", () => {
  it("answers 401 without the bearer token or with a wrong one", async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape("Bearer wrong-token-wrong-token")).status).toBe(401);
  });

  it("counts ingest results per provider, the latency and the backlog", async () => {
    const event = stripeEvent(
      { chargeId: "ch_metrics_1", amount: 100, currency: "usd", customerId: "cus_m", customerEmail: "m@example.com" },
      { kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() - 1000 },
      "evt_metrics_1",
    );
    const webhook = signedWebhook("stripe", event.id, JSON.stringify(event), TEST_SECRETS.stripe);
    expect((await sendWebhook(webhook.body, webhook.headers)).status).toBe(200);
    expect((await sendWebhook(webhook.body, webhook.headers)).status).toBe(200);
    expect((await sendWebhook(webhook.body, { "stripe-signature": "t=1,v1=00" })).status).toBe(401);
    const unreadable = '{"not": "an event"}';
    const signature = signStripe(TEST_SECRETS.stripe, Math.floor(Date.now() / 1000), unreadable);
    expect((await sendWebhook(unreadable, { "stripe-signature": signature })).status).toBe(200);
    await waitFor(async () => web.worker.outcomes.includes("processed"), 30_000, "the event to be processed");

    const response = await scrape(`Bearer ${TOKEN}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const families = parsePrometheusTextFormat(text);
    expect(sample(families, "webhook_inbox_ingest_total", { provider: "stripe", result: "stored" })).toBe(1);
    expect(sample(families, "webhook_inbox_ingest_total", { provider: "stripe", result: "duplicate" })).toBe(1);
    expect(sample(families, "webhook_inbox_ingest_total", { provider: "stripe", result: "rejected" })).toBe(1);
    expect(sample(families, "webhook_inbox_ingest_total", { provider: "stripe", result: "stored_failed" })).toBe(1);
    expect(family(families, "webhook_inbox_ingest_duration_seconds").type).toBe("HISTOGRAM");
    expect(histogramCount(text, "webhook_inbox_ingest_duration_seconds", { provider: "stripe" })).toBe(4);
    expect(sample(families, "webhook_inbox_failed_events")).toBe(1);
    expect(sample(families, "webhook_inbox_pending_events")).toBe(0);
    expect(sample(families, "webhook_inbox_oldest_pending_age_seconds")).toBe(0);
    expect(
      family(families, "webhook_inbox_queue_jobs")
        .metrics.map((metric) => metric.labels?.state)
        .sort(),
    ).toEqual(["active", "deferred", "ready"]);
  });
});

describe("pending events by gateway account", () => {
  it("names the accounts with the most pending events, at most PENDING_ACCOUNTS_SHOWN, never the default one", async () => {
    // Rows without a job stay pending: what a backlog looks like at scrape time.
    await web.app.pool.query(
      `INSERT INTO webhook_inbox (provider, event_id, event_type, status, raw_body, gateway_account)
       SELECT 'stripe', 'evt_acct_' || g, 'charge.succeeded', 'pending', '\\x7b7d',
              CASE WHEN g <= 3 THEN 'default' ELSE 'acct_' || (g % 12) END
         FROM generate_series(1, 40) AS g`,
    );
    try {
      const families = parsePrometheusTextFormat(await (await scrape(`Bearer ${TOKEN}`)).text());
      const shown = family(families, "webhook_inbox_pending_events_by_account").metrics;
      expect(shown).toHaveLength(PENDING_ACCOUNTS_SHOWN);
      expect(shown.map((metric) => metric.labels?.account)).not.toContain("default");
      expect(sample(families, "webhook_inbox_pending_events_by_account", { provider: "stripe", account: "acct_4" })).toBe(4);
    } finally {
      await web.app.pool.query("DELETE FROM webhook_inbox WHERE event_id LIKE 'evt_acct_%'");
    }
  });
});

describe("the worker's /metrics", () => {
  it("serves processing, attempt and refetch metrics behind the same token", async () => {
    // Processing counters live in the worker process: here, this test's worker.
    const gateway = createGatewayClient("gw-test", {
      baseUrl: "http://127.0.0.1:1",
      headers: {},
      timeoutMs: 500,
      maxResponseBytes: 1024,
      ratePerSecond: 100,
      breakerFailures: 1,
      breakerCooldownMs: 60_000,
    });
    await expect(gateway.fetchJson("/charges/ch_1")).rejects.toThrow();

    const { server, port } = await serveMetrics({ port: 0, host: "127.0.0.1", token: TOKEN }, () =>
      renderMetrics(web.app.pool, async () => web.app.boss),
    );
    try {
      const url = `http://127.0.0.1:${port}/metrics`;
      expect((await fetch(url)).status).toBe(401);
      const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(response.status).toBe(200);
      const text = await response.text();
      const families = parsePrometheusTextFormat(text);
      expect(sample(families, "webhook_inbox_events_settled_total", { provider: "stripe", status: "processed" })).toBe(1);
      expect(family(families, "webhook_inbox_attempt_duration_seconds").type).toBe("HISTOGRAM");
      expect(histogramCount(text, "webhook_inbox_attempt_duration_seconds", { outcome: "processed" })).toBe(1);
      expect(sample(families, "webhook_inbox_refetch_calls_total", { provider: "gw-test" })).toBe(1);
      expect(sample(families, "webhook_inbox_refetch_errors_total", { provider: "gw-test" })).toBe(1);
      expect(sample(families, "webhook_inbox_refetch_breaker_state", { provider: "gw-test" })).toBe(2);
    } finally {
      server.close();
    }
  });

  it("counts the workers alive, and each destination's undelivered pushes and failing state", async () => {
    const read = async () => parsePrometheusTextFormat(await (await scrape(`Bearer ${TOKEN}`)).text());
    await web.app.pool.query("TRUNCATE worker_heartbeats");
    expect(sample(await read(), "webhook_inbox_workers_alive")).toBe(0);
    await recordWorkerStart(web.app.pool, "host:31");
    expect(sample(await read(), "webhook_inbox_workers_alive")).toBe(1);
    await recordWorkerStopping(web.app.pool, "host:31");
    expect(sample(await read(), "webhook_inbox_workers_alive")).toBe(0);

    const { destination } = await createDestination(web.app.pool, { name: "ledger", url: "http://127.0.0.1:9/hooks" }, { actor: "ops" });
    let families = await read();
    expect(sample(families, "webhook_inbox_destination_undelivered", { destination: "ledger" })).toBe(0);
    expect(sample(families, "webhook_inbox_destination_failing", { destination: "ledger", reason: "circuit_open" })).toBe(0);
    // As the delivery worker leaves a breaker it opened (lib/destinations/deliver-changes.ts).
    await web.app.pool.query(
      "UPDATE destinations SET consecutive_failures = 5, breaker_open_until = now() + interval '1 minute' WHERE id = $1",
      [destination.id],
    );
    families = await read();
    expect(sample(families, "webhook_inbox_destination_failing", { destination: "ledger", reason: "circuit_open" })).toBe(1);
    expect(sample(families, "webhook_inbox_destination_failing", { destination: "ledger", reason: "gone" })).toBe(0);
    await web.app.pool.query("UPDATE destinations SET enabled = false, disabled_reason = $2 WHERE id = $1", [destination.id, GONE_REASON]);
    families = await read();
    expect(sample(families, "webhook_inbox_destination_failing", { destination: "ledger", reason: "gone" })).toBe(1);
    expect(sample(families, "webhook_inbox_destination_failing", { destination: "ledger", reason: "circuit_open" })).toBe(0);
  });

  it("is off without a token", async () => {
    expect(checkMetricsAccess(undefined, `Bearer ${TOKEN}`)).toBe("not_configured");
    const { server, port } = await serveMetrics({ port: 0, host: "127.0.0.1", token: undefined }, async () => "");
    try {
      const response = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(response.status).toBe(404);
      expect(await response.text()).toMatch(/METRICS_TOKEN/);
    } finally {
      server.close();
    }
  });
});
