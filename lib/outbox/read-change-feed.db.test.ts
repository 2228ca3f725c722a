import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { HistoryStep, PaymentFacts } from "@/lib/testing/gateway-events";
import { processEvents, type ProcessDeps } from "@/lib/inbox/process/process-event";
import { applyChargeUpdates } from "@/lib/payments/apply-charge-update";
import { registerPayment } from "@/lib/payments/register-payment";
import { ingestStripeStep, processDeps, stripePayment } from "@/lib/testing/payment-events";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";
import type { PaymentChange } from "./payment-change";
import { changeFeedQuerySchema, createChangeFeed, MAX_WAITS_PER_READER, readChangeFeed, type ChangeFeed } from "./read-change-feed";

// The change feed against a real database: commit order, no gaps, no repeats.

let app: TestApp;
let deps: ProcessDeps;

beforeAll(async () => {
  app = await createTestApp("change_feed");
  deps = processDeps(app);
  feed = createChangeFeed(app.pool);
});
afterAll(async () => app.close());
beforeEach(async () => {
  await app.pool.query("TRUNCATE webhook_inbox, payments, payment_changes CASCADE");
});

const facts = stripePayment;
const ingest = async (payment: PaymentFacts, step: Pick<HistoryStep, "kind" | "occurredAtMs"> & Partial<HistoryStep>) =>
  (await ingestStripeStep(app, payment, step)).inboxId;

let feed: ChangeFeed;
const page = (query: Record<string, string>, reader?: string) => readChangeFeed(feed, changeFeedQuerySchema.parse(query), { reader });

/** Follows the feed from the start until `done()` says no more changes will come and a page is empty. */
async function follow(done: () => boolean, limit: string): Promise<PaymentChange[]> {
  const seen: PaymentChange[] = [];
  let cursor: string | undefined;
  for (;;) {
    const finished = done();
    const result = await page({ limit, wait: "1", ...(cursor ? { after: cursor } : {}) });
    seen.push(...result.data);
    cursor = result.cursor;
    if (finished && result.data.length === 0) return seen;
  }
}

function expectEachOnceInVersionOrder(seen: PaymentChange[], all: string[]) {
  expect(seen.map(({ id }) => id).sort()).toEqual([...all].sort());
  const versions = new Map<string, number[]>();
  for (const change of seen) versions.set(change.chargeId, [...(versions.get(change.chargeId) ?? []), change.version]);
  for (const list of versions.values()) expect(list).toEqual(list.map((_, index) => index + 1));
}

describe("the change feed", () => {
  it("gives two concurrent readers every change once, in version order, while a transaction that started first commits last", async () => {
    const now = Date.now();
    const held = facts();
    const others = Array.from({ length: 12 }, facts);
    const heldPaid = await ingest(held, { kind: "succeeded", occurredAtMs: now - 50_000 });
    const heldRefund = await ingest(held, { kind: "refund", amountRefunded: 1000, occurredAtMs: now - 40_000 });

    // The held transaction inserts its change first (the lowest id), then stays open.
    const client = await app.pool.connect();
    await client.query("BEGIN");
    await applyChargeUpdates(client, [
      {
        provider: "stripe",
        chargeId: held.chargeId,
        snapshot: { status: "paid", amount: 1000, currency: "usd" },
        at: { micros: BigInt(now - 50_000) * 1000n, precision: "second" },
        inboxId: heldPaid,
        cause: { eventId: "evt_held", eventType: "charge.succeeded", occurredAt: null },
        source: "event",
        createIfMissing: true,
      },
    ]);
    await client.query("UPDATE webhook_inbox SET status = 'processed', processed_at = now() WHERE id = $1", [heldPaid]);

    let producing = true;
    const readers = [follow(() => !producing, "3"), follow(() => !producing, "5")];
    // Later transactions commit while it is open, and while the readers read.
    for (const payment of others) {
      const paid = await ingest(payment, { kind: "succeeded", occurredAtMs: now - 30_000 });
      expect(await processEvents(deps, [paid])).toEqual(["processed"]);
    }
    const firstReads = await page({ limit: "1000" });
    expect(firstReads.data.map(({ chargeId }) => chargeId)).not.toContain(held.chargeId);
    await client.query("COMMIT");
    client.release();
    // The held payment's next version, and more changes of the others, after it.
    expect(await processEvents(deps, [heldRefund])).toEqual(["processed"]);
    for (const payment of others.slice(0, 6)) {
      expect(
        await processEvents(deps, [await ingest(payment, { kind: "refund", amountRefunded: 300, occurredAtMs: now - 20_000 })]),
      ).toEqual(["processed"]);
    }
    producing = false;

    const { rows } = await app.pool.query<{ id: string }>("SELECT 'chg_' || id AS id FROM payment_changes");
    expect(rows).toHaveLength(1 + 1 + others.length + 6);
    for (const seen of await Promise.all(readers))
      expectEachOnceInVersionOrder(
        seen,
        rows.map(({ id }) => id),
      );
  });

  it("filters by provider and status, and a filtered reader's cursor moves past what it skips", async () => {
    const now = Date.now();
    const payment = facts();
    await processEvents(deps, [await ingest(payment, { kind: "succeeded", occurredAtMs: now - 30_000 })]);
    await processEvents(deps, [await ingest(payment, { kind: "refund", amountRefunded: 1000, occurredAtMs: now - 20_000 })]);
    const refunded = await page({ status: "refunded,charged_back" });
    expect(refunded.data).toMatchObject([{ chargeId: payment.chargeId, version: 2, status: "refunded", previousStatus: "paid" }]);
    expect((await page({ provider: "asaas" })).data).toEqual([]);
    const paidOnly = await page({ status: "paid" });
    expect(paidOnly.data).toHaveLength(1);
    expect((await page({ status: "paid", after: paidOnly.cursor })).data).toEqual([]);
  });

  it("carries each payment's gateway account: a Connect event's, default without one, learnt by a host-registered payment", async () => {
    const now = Date.now();
    const connected = { ...facts(), account: "acct_feed_1" };
    const own = facts();
    const registered = { ...facts(), account: "acct_feed_2" };
    await registerPayment(app.pool, {
      provider: "stripe",
      chargeId: registered.chargeId,
      amount: registered.amount,
      currency: registered.currency,
      status: "pending",
    });
    for (const payment of [connected, own, registered]) {
      expect(await processEvents(deps, [await ingest(payment, { kind: "succeeded", occurredAtMs: now - 30_000 })])).toEqual(["processed"]);
    }
    const accounts = new Map((await page({ limit: "1000" })).data.map((change) => [change.chargeId, change.account]));
    expect([connected, own, registered].map(({ chargeId }) => accounts.get(chargeId))).toEqual(["acct_feed_1", "default", "acct_feed_2"]);
    const { rows } = await app.pool.query<{ account: string }>(
      "SELECT gateway_account AS account FROM payments WHERE gateway_charge_id = ANY($1) ORDER BY array_position($1, gateway_charge_id)",
      [[connected.chargeId, own.chargeId, registered.chargeId]],
    );
    expect(rows.map(({ account }) => account)).toEqual(["acct_feed_1", "default", "acct_feed_2"]);
  });

  it("holds an empty page until a change arrives when asked to wait", async () => {
    const start = await page({});
    const waiting = page({ after: start.cursor, wait: "20" });
    const payment = facts();
    await processEvents(deps, [await ingest(payment, { kind: "succeeded", occurredAtMs: Date.now() - 1000 })]);
    expect((await waiting).data).toMatchObject([{ chargeId: payment.chargeId, version: 1 }]);
  });

  it("refuses a cursor it did not give out, and limits out of range", () => {
    expect(changeFeedQuerySchema.safeParse({ after: "abc" }).success).toBe(false);
    expect(changeFeedQuerySchema.safeParse({ after: Buffer.from("p1; DROP").toString("base64url") }).success).toBe(false);
    expect(changeFeedQuerySchema.safeParse({ limit: "0" }).success).toBe(false);
    expect(changeFeedQuerySchema.safeParse({ limit: "5000" }).success).toBe(false);
    expect(changeFeedQuerySchema.safeParse({ status: "paid,bogus" }).success).toBe(false);
    // An empty filter would match nothing and move the reader past every change: refused, not "none".
    expect(changeFeedQuerySchema.safeParse({ provider: "" }).success).toBe(false);
    expect(changeFeedQuerySchema.safeParse({ status: "," }).success).toBe(false);
  });

  it("wakes a waiting reader only for a change it wants; one that wants none moves its cursor past them", async () => {
    const start = await page({});
    const began = Date.now();
    const asaasOnly = page({ after: start.cursor, provider: "asaas", wait: "3" });
    const everything = page({ after: start.cursor, wait: "20" });
    const payment = facts();
    await processEvents(deps, [await ingest(payment, { kind: "succeeded", occurredAtMs: Date.now() - 1000 })]);
    expect((await everything).data).toMatchObject([{ chargeId: payment.chargeId }]);
    const skipped = await asaasOnly;
    expect(skipped.data).toEqual([]);
    expect(Date.now() - began).toBeGreaterThanOrEqual(2900);
    // Its cursor is past the stripe change: reading on from it, unfiltered, finds nothing.
    expect((await page({ after: skipped.cursor })).data).toEqual([]);
  });

  it("holds at most MAX_WAITS_PER_READER waiting reads per token, and answers the rest 429 at once", async () => {
    const start = await page({});
    const controller = new AbortController();
    const held = Array.from({ length: MAX_WAITS_PER_READER }, () =>
      readChangeFeed(feed, changeFeedQuerySchema.parse({ after: start.cursor, wait: "20" }), {
        reader: "token-a",
        signal: controller.signal,
      }),
    );
    await expect(page({ after: start.cursor, wait: "20" }, "token-a")).rejects.toMatchObject({ code: "RATE_LIMITED" });
    // Another token waits, and a read that doesn't wait is never refused.
    const other = page({ after: start.cursor, wait: "1" }, "token-b");
    expect((await page({ after: start.cursor }, "token-a")).data).toEqual([]);
    expect((await other).data).toEqual([]);
    controller.abort();
    expect((await Promise.all(held)).every((result) => result.data.length === 0)).toBe(true);
    // Once they end, the token may wait again.
    expect((await page({ after: start.cursor, wait: "0.5" }, "token-a")).data).toEqual([]);
  });
});
