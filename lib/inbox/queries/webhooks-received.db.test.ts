import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { silentForLongerThanUsual, webhooksReceived } from "./webhooks-received";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp("webhooks_received");
});
afterAll(async () => app.close());

describe("silentForLongerThanUsual", () => {
  it.each([
    // [seconds since the last webhook, webhooks in the week, silent?]
    [null, 1000, false],
    [3 * 3600, 49, false], // too few webhooks to have a usual rhythm
    [14 * 60, 100_000, false], // never under 15 minutes
    [16 * 60, 100_000, true],
    [3600, 1008, false], // one every 10 min on average: 100 min is the bar
    [101 * 60, 1008, true],
  ])("%s s quiet, %s a week -> %s", (secondsSinceLast, weekTotal, silent) => {
    expect(silentForLongerThanUsual({ secondsSinceLast, weekTotal })).toBe(silent);
  });
});

describe("webhooksReceived", () => {
  it("reports each provider's last webhook, week and rejected signatures of the last hour", async () => {
    await app.pool.query(
      `INSERT INTO webhook_inbox (provider, event_id, event_type, received_at, raw_body) VALUES
         ('stripe', 'evt_old', 't', now() - interval '2 hours', '\\x7b7d'), ('stripe', 'evt_new', 't', now() - interval '5 minutes', '\\x7b7d')`,
    );
    await app.pool.query(
      `INSERT INTO signature_failures (provider, received_at, reason, body_excerpt, body_sha256, body_bytes) VALUES
         ('stripe', now() - interval '10 minutes', 'bad', '', repeat('0', 64), 2), ('stripe', now() - interval '2 hours', 'bad', '', repeat('0', 64), 2)`,
    );
    const [standard, stripe] = await webhooksReceived(app.pool, ["stripe", "standard"]);
    expect(standard).toMatchObject({ provider: "standard", lastReceivedAt: null, weekTotal: 0, rejectedLastHour: 0 });
    expect(stripe).toMatchObject({ provider: "stripe", weekTotal: 2, rejectedLastHour: 1 });
    expect(stripe!.secondsSinceLast).toBeGreaterThanOrEqual(299);
    expect(stripe!.secondsSinceLast).toBeLessThan(400);
  });
});
