import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { clearInbox, createTestApp, type TestApp } from "@/lib/testing/test-app";
import { testConfig, waitFor } from "@/lib/testing/test-worker";
import type { Precision } from "@/lib/canonical/charge-event";
import Stripe from "stripe";
import { readFixture, variant } from "@/lib/testing/gateway-fixtures";
import { TEST_SECRETS } from "@/lib/testing/test-app";
import { mercadopagoDriver } from "@/lib/providers/mercadopago";
import { ingestEvent } from "./ingest-event";
import { normalizeEvent } from "./normalize-event";
import { identifierHash, REDACTED } from "@/lib/providers/personal-data";
import { storeEvent, type StoreDeps, type StoredEvent } from "./store-event";

// Group commit against PostgreSQL: events stored at the same moment share one statement and one
// commit (rows written in one transaction share its xmin), and each caller still gets its own
// answer, only once the commit holding its row is done.

let app: TestApp;
let deps: StoreDeps;

beforeAll(async () => {
  app = await createTestApp("store_event");
  deps = { pool: app.pool, boss: app.boss, config: app.config };
});
afterAll(() => app?.close());
beforeEach(() => clearInbox(app));

function event(eventId: string, overrides: { precision?: string; customerEmail?: string } = {}): StoredEvent {
  const customerEmail = overrides.customerEmail ?? "batch@example.com";
  const body = JSON.stringify({ id: eventId, note: `for ${customerEmail}` });
  return {
    provider: "stripe",
    columns: {
      eventId,
      eventIdDerived: false,
      type: "charge.succeeded",
      resourceId: `ch_${eventId}`,
      customerId: null,
      customerEmail,
      payload: body,
      occurredAt: "2026-12-01T10:00:00.000Z",
      precision: (overrides.precision ?? "millisecond") as Precision,
      account: null,
    },
    error: null,
    rawBody: Buffer.from(body),
    headers: { "stripe-signature": "[redacted]" },
    queryString: null,
    source: "delivery",
  };
}

async function stored(): Promise<{ eventId: string; id: number; tx: string }[]> {
  const { rows } = await app.pool.query<{ eventId: string; id: number; tx: string }>(
    `SELECT event_id AS "eventId", id, xmin::text AS tx FROM webhook_inbox ORDER BY id`,
  );
  return rows;
}

async function jobsFor(ids: number[]): Promise<number[]> {
  const { rows } = await app.pool.query<{ inboxId: number }>(
    `SELECT (data->>'inboxId')::bigint AS "inboxId" FROM pgboss.job WHERE name = 'webhooks' ORDER BY 1`,
  );
  expect(rows.map((row) => row.inboxId).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
  return rows.map((row) => row.inboxId);
}

describe("group commit at ingest", () => {
  it("stores events that arrive together in one commit, the first of equal keys once and the rest as duplicates", async () => {
    // The first goes at once (nothing in flight); the others queue behind it and go in one statement.
    const ids = ["evt_a", "evt_b", "evt_b", "evt_c", "evt_a", "evt_d"];
    const results = await Promise.all(ids.map((id) => storeEvent(deps, event(id))));
    const rows = await stored();
    expect(rows.map((row) => row.eventId).sort()).toEqual(["evt_a", "evt_b", "evt_c", "evt_d"]);
    expect(new Set(rows.map((row) => row.tx)).size).toBe(2);
    const idOf = (eventId: string) => rows.find((row) => row.eventId === eventId)!.id;
    expect(results).toEqual([idOf("evt_a"), idOf("evt_b"), null, idOf("evt_c"), null, idOf("evt_d")]);
    await jobsFor(rows.map((row) => row.id));
    const { rows: keys } = await app.pool.query<{ eventId: string; inboxId: number }>(
      `SELECT event_id AS "eventId", inbox_id AS "inboxId" FROM inbox_event_keys ORDER BY event_id`,
    );
    expect(keys).toEqual(rows.map((row) => ({ eventId: row.eventId, inboxId: row.id })).sort((a, b) => a.eventId.localeCompare(b.eventId)));
    // The hourly counts are kept per statement: the batch counted once per row it stored.
    const { rows: counts } = await app.pool.query<{ n: number }>(
      `SELECT sum(n)::int AS n FROM inbox_hourly_counts WHERE status = 'pending'`,
    );
    expect(counts[0]!.n).toBe(4);
  });

  it("answers duplicate for a key stored before, and stores its neighbours in the batch", async () => {
    const first = await storeEvent(deps, event("evt_old"));
    const results = await Promise.all(["evt_new_1", "evt_old", "evt_new_2", "evt_new_3"].map((id) => storeEvent(deps, event(id))));
    expect(results[1]).toBeNull();
    expect(results.filter((id) => id !== null)).toHaveLength(3);
    const rows = await stored();
    expect(rows).toHaveLength(4);
    expect(rows.find((row) => row.eventId === "evt_old")!.id).toBe(first);
    await jobsFor(rows.map((row) => row.id));
  });

  it("keeps each event's own body and payload when a batch's bodies travel together, whatever their bytes", async () => {
    // Bodies of different lengths, one not UTF-8 (stored failed, no payload), one with multi-byte characters.
    const bodies = [
      Buffer.from('{"id":"evt_body_a"}'),
      Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x80]),
      Buffer.from(JSON.stringify({ id: "evt_body_c", name: "João Ñandú 支付" })),
      Buffer.from(JSON.stringify({ id: "evt_body_d", note: "x".repeat(5000) })),
    ];
    const events = bodies.map((rawBody, index) => {
      const base = event(`evt_body_${"abcd"[index]}`);
      const readable = index !== 1;
      return {
        ...base,
        rawBody,
        error: readable ? null : "not JSON",
        columns: { ...base.columns, payload: readable ? rawBody.toString("utf8") : null },
      };
    });
    await Promise.all(events.map((stored) => storeEvent(deps, stored)));
    const { rows } = await app.pool.query<{ eventId: string; raw: Buffer; payload: unknown; status: string }>(
      `SELECT event_id AS "eventId", raw_body AS raw, payload, status FROM webhook_inbox ORDER BY event_id`,
    );
    expect(rows.map(({ eventId, raw, payload, status }) => ({ eventId, raw: raw.toString("hex"), payload, status }))).toEqual(
      events.map((stored, index) => ({
        eventId: stored.columns.eventId,
        raw: bodies[index]!.toString("hex"),
        payload: stored.columns.payload === null ? null : JSON.parse(stored.columns.payload),
        status: stored.error === null ? "pending" : "failed",
      })),
    );
  });

  it("splits a failing batch: the one bad row fails alone, every neighbour is stored with its job", async () => {
    const ids = ["evt_0", "evt_1", "evt_2", "evt_bad", "evt_3", "evt_4", "evt_5"];
    const outcomes = await Promise.all(
      ids.map((id) =>
        storeEvent(deps, event(id, id === "evt_bad" ? { precision: "fortnight" } : {})).then(
          (inboxId) => ({ id, inboxId }),
          (error: { code?: string }) => ({ id, error: error.code }),
        ),
      ),
    );
    expect(outcomes.find((outcome) => outcome.id === "evt_bad")).toEqual({ id: "evt_bad", error: "23514" });
    expect(outcomes.filter((outcome) => "inboxId" in outcome && typeof outcome.inboxId === "number")).toHaveLength(6);
    const rows = await stored();
    expect(rows.map((row) => row.eventId).sort()).toEqual(ids.filter((id) => id !== "evt_bad").sort());
    await jobsFor(rows.map((row) => row.id));
  });

  it("answers only after the commit holding the row: held back by a lock, nobody is answered; killed, nothing was stored", async () => {
    const locker = await app.pool.connect();
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE inbox_event_keys IN EXCLUSIVE MODE");
      let answered = 0;
      const pending = ["evt_held_1", "evt_held_2", "evt_held_3"].map((id) =>
        storeEvent(deps, event(id)).then(
          (inboxId) => (answered++, inboxId),
          (error: Error) => error,
        ),
      );
      const waiting = await waitFor(async () => {
        const { rows } = await app.pool.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%inbox_event_keys%'`,
        );
        return rows.length === 2 ? rows : null;
      });
      expect(answered).toBe(0);
      // A crash of the statement before its commit: its callers get the error, not an acknowledgement.
      for (const { pid } of waiting) await app.pool.query("SELECT pg_terminate_backend($1)", [pid]);
      await locker.query("ROLLBACK");
      const results = await Promise.all(pending);
      expect(answered).toBe(0);
      expect(results.every((result) => result instanceof Error)).toBe(true);
      expect(await stored()).toEqual([]);
    } finally {
      locker.release();
    }
    // Answered means committed: at the moment of the answer, another connection sees the row.
    const seen = await Promise.all(
      ["evt_after_1", "evt_after_2"].map(async (id) => {
        await storeEvent(deps, event(id));
        return (await stored()).some((row) => row.eventId === id);
      }),
    );
    expect(seen).toEqual([true, true]);
  });

  it("with group commit off, stores each event in its own statement", async () => {
    const off = { ...deps, config: testConfig(app.env, { INGEST_GROUP_COMMIT: "off" }) };
    await Promise.all(["evt_1", "evt_2", "evt_3", "evt_2"].map((id) => storeEvent(off, event(id))));
    const rows = await stored();
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((row) => row.tx)).size).toBe(3);
  });

  it("stores a delivery naming an erased identifier redacted, even in a batch whose statement found the erasure", async () => {
    const erased = "erased.subject@example.com";
    const PRIVACY_HASH_KEY = "store-event-test-hash-key-0123456789";
    await app.pool.query("INSERT INTO erased_identifiers (hash, erasure_id) VALUES ($1, 0)", [identifierHash(PRIVACY_HASH_KEY, erased)]);
    try {
      for (const config of [
        testConfig(app.env, { PRIVACY_HASH_KEY }),
        testConfig(app.env, { PRIVACY_HASH_KEY, INGEST_GROUP_COMMIT: "off" }),
      ]) {
        await clearInbox(app);
        const ids = ["evt_kept_1", "evt_erased", "evt_kept_2", "evt_kept_3"];
        await Promise.all(
          ids.map((id) => storeEvent({ ...deps, config }, event(id, id === "evt_erased" ? { customerEmail: erased } : {}))),
        );
        const { rows } = await app.pool.query<{ eventId: string; email: string; body: string; redacted: boolean }>(
          `SELECT event_id AS "eventId", customer_email AS email, convert_from(raw_body, 'UTF8') AS body, redacted_at IS NOT NULL AS redacted
             FROM webhook_inbox ORDER BY event_id`,
        );
        expect(rows.map(({ eventId, email, redacted }) => ({ eventId, email, redacted }))).toEqual([
          { eventId: "evt_erased", email: REDACTED, redacted: true },
          { eventId: "evt_kept_1", email: "batch@example.com", redacted: false },
          { eventId: "evt_kept_2", email: "batch@example.com", redacted: false },
          { eventId: "evt_kept_3", email: "batch@example.com", redacted: false },
        ]);
        // The identifier is gone wherever the body named it, not only from the column.
        expect(rows[0]!.body).not.toContain(erased);
        expect(rows[1]!.body).toContain("batch@example.com");
        await jobsFor((await stored()).map((row) => row.id));
      }
    } finally {
      await app.pool.query("DELETE FROM erased_identifiers");
    }
  });
});

describe("the gateway account of a stored event", () => {
  const accountOf = async (id: number | null) =>
    (await app.pool.query<{ account: string }>("SELECT gateway_account AS account FROM webhook_inbox WHERE id = $1", [id])).rows[0]
      ?.account;

  it("is the URL's account when given, else the one the body names, else default", async () => {
    const named = { ...event("evt_named"), columns: { ...event("evt_named").columns, account: "acct_body" } };
    expect(await accountOf(await storeEvent(deps, { ...named, account: "shop-a" }))).toBe("shop-a");
    expect(await accountOf(await storeEvent(deps, { ...named, columns: { ...named.columns, eventId: "evt_named_2" } }))).toBe("acct_body");
    expect(await accountOf(await storeEvent(deps, event("evt_plain")))).toBe("default");
  });

  it("reads a Stripe Connect event's top-level account (stripe/openapi's event fixture, signed by the SDK)", async () => {
    const connect = readFixture<{ id: string; account: string }>("stripe/connect-event.json");
    const body = JSON.stringify(variant(connect, { id: "evt_connect_store" }));
    const outcome = await ingestEvent(deps, {
      provider: "stripe",
      rawBody: Buffer.from(body),
      headers: { "stripe-signature": Stripe.webhooks.generateTestHeaderString({ payload: body, secret: TEST_SECRETS.stripe }) },
    });
    expect(outcome.kind).toBe("stored");
    expect(await accountOf(outcome.kind === "stored" ? outcome.inboxId : null)).toBe("acct_1Connected");
  });

  it("reads a Mercado Pago notification's seller (user_id, the documented notification body)", async () => {
    // developers: "Notificaciones > Webhooks", the body of a payment notification.
    const body = Buffer.from(
      JSON.stringify({
        id: 12345,
        live_mode: true,
        type: "payment",
        date_created: "2015-03-25T10:04:58.396-04:00",
        user_id: 44444,
        api_version: "v1",
        action: "payment.created",
        data: { id: "999999999" },
      }),
    );
    const normalized = normalizeEvent(mercadopagoDriver, body, {
      headers: {},
      query: new URLSearchParams({ "data.id": "999999999", type: "payment" }),
      timeZone: "UTC",
      settings: undefined,
    });
    expect(normalized.columns.account).toBe("44444");
    const id = await storeEvent(deps, {
      provider: "mercadopago",
      columns: normalized.columns,
      error: null,
      rawBody: body,
      headers: {},
      queryString: "data.id=999999999&type=payment",
      source: "delivery",
    });
    expect(await accountOf(id)).toBe("44444");
  });
});
