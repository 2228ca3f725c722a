import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedWebhook, stripeEvent } from "@/lib/testing/gateway-events";
import { TEST_SECRETS } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import { startWebAndWorker, type WebAndWorker } from "@/e2e/harness/web-runtime";
import { configureLogger, prettyLine } from "./logger";

// What the app logs, captured from the real ingest route and a real worker: JSON lines, a request
// id on every ingest line, the inbox id on every processing line, and never payload content.

let web: WebAndWorker;
const lines: string[] = [];

beforeAll(async () => {
  web = await startWebAndWorker("logger");
  (await import("@/lib/runtime/web-runtime")).webRuntime();
  // After the web runtime configured the process's logger: capture instead of stdout.
  configureLogger({ level: "info", destination: { write: (line: string) => void lines.push(line) } });
});
afterAll(async () => web.close());

const sendWebhook = (body: string, headers: Record<string, string>) => web.postWebhook("stripe", body, headers);

const entries = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

describe("structured logs", () => {
  it("ingest and processing lines carry their ids and no payload", async () => {
    const event = stripeEvent(
      { chargeId: "ch_logs_1", amount: 4200, currency: "usd", customerId: "cus_logs", customerEmail: "private.customer@example.com" },
      { kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() - 1000 },
      "evt_logs_1",
    );
    const webhook = signedWebhook("stripe", event.id, JSON.stringify(event), TEST_SECRETS.stripe);
    expect((await sendWebhook(webhook.body, { ...webhook.headers, "x-request-id": "req-from-proxy-1" })).status).toBe(200);
    expect((await sendWebhook(webhook.body, webhook.headers)).status).toBe(200);
    expect((await sendWebhook(webhook.body, { "stripe-signature": "t=1,v1=00" })).status).toBe(401);
    await waitFor(async () => web.worker.outcomes.includes("processed"), 30_000, "processing");

    const all = entries();
    const ingest = all.filter((entry) => entry.component === "ingest");
    expect(ingest.map((entry) => entry.result)).toEqual(["stored", "duplicate", "rejected"]);
    expect(ingest[0]).toMatchObject({ level: "info", requestId: "req-from-proxy-1", provider: "stripe", msg: "webhook answered" });
    for (const entry of ingest) expect(entry.requestId).toEqual(expect.stringMatching(/^[\w.:-]+$/));
    expect(new Set(ingest.map((entry) => entry.requestId)).size).toBe(3);

    const { rows } = await web.app.pool.query<{ id: number }>("SELECT id FROM webhook_inbox WHERE event_id = 'evt_logs_1'");
    const processing = all.filter((entry) => entry.component === "worker");
    expect(processing.length).toBeGreaterThan(0);
    for (const entry of processing) expect(entry.inboxId).toBe(rows[0]!.id);
    expect(processing).toContainEqual(expect.objectContaining({ outcome: "processed", msg: "event attempt finished" }));

    const text = lines.join("");
    for (const secret of ["private.customer@example.com", "cus_logs", "ch_logs_1", webhook.headers["stripe-signature"]!]) {
      expect(text).not.toContain(secret);
    }
  });

  it("formats a line for people under npm run dev", () => {
    const json = JSON.stringify({
      level: "warn",
      time: Date.UTC(2026, 0, 2, 3, 4, 5, 678),
      pid: 1,
      component: "ingest",
      msg: "webhook answered",
      requestId: "r1",
      ms: 12,
    });
    expect(prettyLine(json)).toBe("03:04:05.678 WARN  [ingest] webhook answered requestId=r1 ms=12\n");
  });
});
