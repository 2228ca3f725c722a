import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { countEvents } from "./count-events";
import { previewReplay } from "../replay/replay-events";

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp("count_events");
  // 300 events: stripe/standard alternating, every 3rd ignored, every 10th failed, type by parity.
  await app.pool.query(
    `INSERT INTO webhook_inbox (provider, event_id, event_type, status, raw_body, received_at)
     SELECT CASE WHEN g % 2 = 0 THEN 'stripe' ELSE 'standard' END, 'evt_' || g,
            CASE WHEN g % 2 = 0 THEN 'charge.refunded' ELSE 'charge.succeeded' END,
            CASE WHEN g % 10 = 0 THEN 'failed' WHEN g % 3 = 0 THEN 'ignored' ELSE 'processed' END,
            '\\x00', now() - make_interval(hours => g % 50)
       FROM generate_series(1, 300) AS g`,
  );
});
afterAll(async () => app.close());

async function exact(where: string) {
  const { rows } = await app.pool.query<{ provider: string; n: number }>(
    `SELECT provider, count(*)::int AS n FROM webhook_inbox WHERE ${where} GROUP BY provider ORDER BY provider`,
  );
  return Object.fromEntries(rows.map((row) => [row.provider, row.n]));
}

describe("countEvents", () => {
  it("answers provider and status filters from the rollup, exactly", async () => {
    const all = await countEvents(app.pool, {}, 10);
    expect(all).toEqual({ total: 300, byProvider: await exact("true"), atLeast: false });
    const failed = await countEvents(app.pool, { provider: "stripe", statuses: ["failed", "ignored"] }, 10);
    expect(failed.byProvider).toEqual(await exact("provider = 'stripe' AND status IN ('failed', 'ignored')"));
    expect(failed.atLeast).toBe(false);
  });

  it("counts other filters through the index up to the cap, then says 'at least'", async () => {
    const small = await countEvents(app.pool, { type: "charge.refunded", statuses: ["failed"] }, 1000);
    expect(small).toEqual({ total: 30, byProvider: { stripe: 30 }, atLeast: false });
    const capped = await countEvents(app.pool, { type: "charge.succeeded" }, 100);
    expect(capped).toMatchObject({ total: 100, atLeast: true });
  });

  it("gives the bulk replay preview the same numbers the replay would touch", async () => {
    expect(await previewReplay(app.pool, {})).toEqual({
      total: Object.values(await exact("status IN ('failed', 'ignored')")).reduce((a, b) => a + b, 0),
      byProvider: await exact("status IN ('failed', 'ignored')"),
      atLeast: false,
    });
  });
});
