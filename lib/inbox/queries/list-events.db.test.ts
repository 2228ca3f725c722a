import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../../testing/test-app";
import { listEvents, type EventSort } from "./list-events";
import type { EventFilter } from "./event-filter";
import { withTransaction, type Queryable } from "../../db/pool";

let app: TestApp;

type Seed = {
  provider?: string;
  eventId: string;
  type?: string;
  resource?: string;
  email?: string;
  customer?: string;
  status?: string;
  receivedAt: string;
  occurredAt?: string | null;
  payload?: unknown;
};

async function seed(rows: Seed[]) {
  for (const row of rows) {
    await app.pool.query(
      `INSERT INTO webhook_inbox (provider, event_id, event_type, resource_id, customer_email, customer_id, status, received_at, occurred_at, payload, raw_body)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, '\\x7b7d')`,
      [
        row.provider ?? "stripe",
        row.eventId,
        row.type ?? "charge.succeeded",
        row.resource ?? null,
        row.email ?? null,
        row.customer ?? null,
        row.status ?? "processed",
        row.receivedAt,
        row.occurredAt ?? null,
        JSON.stringify(row.payload ?? {}),
      ],
    );
  }
}

async function allPages(filter: EventFilter, sort: EventSort, limit: number, between?: (page: number) => Promise<void>) {
  const ids: number[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await listEvents(app.pool, { filter, sort, cursor, limit });
    ids.push(...result.rows.map((row) => row.id));
    if (!result.nextCursor) break;
    cursor = result.nextCursor;
    await between?.(page);
  }
  return ids;
}

beforeAll(async () => {
  app = await createTestApp("explorer");
  const base = Date.parse("2026-01-01T00:00:00Z");
  const rows: Seed[] = [];
  for (let i = 0; i < 60; i++) {
    rows.push({
      provider: i % 3 === 0 ? "standard" : "stripe",
      eventId: `evt_${i}`,
      resource: `ch_${i % 10}`,
      email: i % 10 === 0 ? "vip@example.com" : `c${i}@example.com`,
      customer: `cus_${i % 7}`,
      status: i % 4 === 0 ? "ignored" : i % 9 === 0 ? "failed" : "processed",
      // Pairs of rows share a received_at to the microsecond: the id breaks the tie.
      receivedAt: new Date(base + Math.floor(i / 2) * 1000).toISOString().replace(".000Z", ".123456Z"),
      occurredAt: i % 5 === 0 ? null : new Date(base - i * 1000).toISOString(),
      payload: { data: { object: { metadata: { order: i % 6 === 0 ? "A-1" : `B-${i}`, priority: i % 2 } } } },
    });
  }
  await seed(rows);
});
afterAll(async () => app.close());

describe("listEvents", () => {
  it("pages back with `before` to exactly the page it came from, and knows where the ends are", async () => {
    for (const sort of ["received_desc", "occurred_asc"] as EventSort[]) {
      const first = await listEvents(app.pool, { filter: {}, sort, limit: 7 });
      expect(first.prevCursor).toBeNull();
      const second = await listEvents(app.pool, { filter: {}, sort, cursor: first.nextCursor!, limit: 7 });
      const third = await listEvents(app.pool, { filter: {}, sort, cursor: second.nextCursor!, limit: 7 });
      const backToSecond = await listEvents(app.pool, { filter: {}, sort, before: third.prevCursor!, limit: 7 });
      expect(backToSecond.rows.map((row) => row.id)).toEqual(second.rows.map((row) => row.id));
      const backToFirst = await listEvents(app.pool, { filter: {}, sort, before: backToSecond.prevCursor!, limit: 7 });
      expect(backToFirst.rows.map((row) => row.id)).toEqual(first.rows.map((row) => row.id));
      expect(backToFirst.prevCursor).toBeNull();
      expect(backToFirst.nextCursor).not.toBeNull();
    }
  });

  it.each<EventSort>(["received_desc", "received_asc", "occurred_desc", "occurred_asc"])(
    "pages through every row exactly once, in order (%s)",
    async (sort) => {
      const ids = await allPages({}, sort, 7);
      expect(ids).toHaveLength(60);
      expect(new Set(ids).size).toBe(60);
      const { rows } = await app.pool.query<{ id: number }>(
        `SELECT id FROM webhook_inbox ORDER BY ${sort.startsWith("received") ? "received_at" : "COALESCE(occurred_at, received_at)"} ${sort.endsWith("desc") ? "DESC" : "ASC"}, id ${sort.endsWith("desc") ? "DESC" : "ASC"}`,
      );
      expect(ids).toEqual(rows.map((row) => row.id));
    },
  );

  it("stays stable while events arrive: no row repeated or skipped", async () => {
    let inserted = 0;
    const before = (await app.pool.query<{ id: number }>("SELECT id FROM webhook_inbox")).rows.map((row) => row.id);
    const ids = await allPages({}, "received_desc", 9, async (page) => {
      // New events land at the head (newer) and, for good measure, one in the past.
      await seed([
        { eventId: `late_new_${page}`, receivedAt: new Date(Date.parse("2027-01-01T00:00:00Z") + page).toISOString() },
        { eventId: `late_old_${page}`, receivedAt: new Date(Date.parse("2025-01-01T00:00:00Z") + page).toISOString() },
      ]);
      inserted += 2;
    });
    expect(inserted).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of before) expect(ids).toContain(id);
    await app.pool.query("DELETE FROM webhook_inbox WHERE event_id LIKE 'late_%'");
  });

  it("filters by search (e-mail, event, charge and customer id), status, provider, type and time", async () => {
    const count = async (filter: EventFilter) => (await allPages(filter, "received_desc", 200)).length;
    expect(await count({ search: "VIP@example.com" })).toBe(6);
    expect(await count({ search: "evt_7" })).toBe(1);
    expect(await count({ search: "ch_3" })).toBe(6);
    expect(await count({ search: "cus_2" })).toBe(9);
    expect(await count({ customer: "vip@example.com" })).toBe(6);
    expect(await count({ statuses: ["ignored"] })).toBe(15);
    expect(await count({ statuses: ["ignored", "failed"] })).toBe(15 + 5);
    expect(await count({ provider: "standard" })).toBe(20);
    expect(await count({ provider: "standard", statuses: ["ignored"] })).toBe(5);
    expect(await count({ type: "charge.refunded" })).toBe(0);
    expect(await count({ receivedFrom: new Date("2026-01-01T00:00:10Z"), receivedTo: new Date("2026-01-01T00:00:20Z") })).toBe(20);
    expect(await count({ occurredTo: new Date("2025-12-31T23:59:30Z") })).toBe(24);
  });

  it("finds a customer's events through their payments when the event itself names no customer", async () => {
    await app.pool.query(
      "INSERT INTO payments (provider, gateway_charge_id, status, customer_email, customer_id) VALUES ('stripe', 'ch_disputed', 'disputed', 'zed@example.com', 'cus_zed')",
    );
    await seed([{ eventId: "evt_dispute_zed", resource: "ch_disputed", receivedAt: "2026-01-02T00:00:00Z" }]);
    for (const filter of [{ search: "Zed@example.com" }, { search: "cus_zed" }, { customer: "zed@example.com" }]) {
      const page = await listEvents(app.pool, { filter, limit: 10 });
      expect(page.rows.map((row) => row.eventId)).toEqual(["evt_dispute_zed"]);
    }
    await app.pool.query("DELETE FROM webhook_inbox WHERE event_id = 'evt_dispute_zed'");
    await app.pool.query("DELETE FROM payments WHERE gateway_charge_id = 'ch_disputed'");
  });

  it("finds events by a fragment of an e-mail, customer, charge or event id, exact matches first, across pages", async () => {
    const ids = async (filter: EventFilter, sort: EventSort = "received_desc") => {
      const found = await allPages(filter, sort, 4);
      const { rows } = await app.pool.query<{ id: number; eventId: string }>(
        `SELECT id, event_id AS "eventId" FROM webhook_inbox WHERE id = ANY($1)`,
        [found],
      );
      const byId = new Map(rows.map((row) => [row.id, row.eventId]));
      return found.map((id) => byId.get(id));
    };
    // "evt_1" is evt_1 itself, then evt_10..evt_19, newest first within each rank, whichever way time runs.
    const fragments = ["evt_1", ...Array.from({ length: 10 }, (_, i) => `evt_1${9 - i}`)];
    expect(await ids({ search: "evt_1" })).toEqual(fragments);
    expect(await ids({ search: "evt_1" }, "received_asc")).toEqual(["evt_1", ...fragments.slice(1).reverse()]);
    expect(await ids({ search: "c1@" })).toEqual(["evt_1"]);
    // An e-mail's local part is its whole: "c11" is c11@ first, then c110@..c119@ (none here but c11).
    expect((await ids({ search: "c11" }))[0]).toBe("evt_11");
    // A part of an e-mail anywhere in it is looked up among payments (trigram index), then their events.
    await app.pool.query(
      "INSERT INTO payments (provider, gateway_charge_id, status, customer_email) VALUES ('stripe', 'ch_5', 'paid', 'c5@example.com')",
    );
    expect((await ids({ search: "xample" })).length).toBe(4); // ch_5 at stripe (two of its six are standard)
    await app.pool.query("DELETE FROM payments WHERE gateway_charge_id = 'ch_5'");
    expect((await ids({ search: "cus_" })).length).toBe(60);
    expect(await ids({ search: "c1" })).toEqual([]); // one or two characters match whole values only
    // Ids are not personal data: a masked role searches them, never customers.
    expect((await ids({ search: "evt_1", searchIdsOnly: true })).length).toBe(11);
    expect(await ids({ search: "c1@", searchIdsOnly: true })).toEqual([]);
    expect(await ids({ search: "100%_" })).toEqual([]);
  });

  it("pages a search on its own as it pages the same search beside another filter, both ways, exact matches first", async () => {
    // cus_9 is exact for the events naming it and for those of a payment naming it; cus_90.. are its fragments.
    const at = (second: number) => `2026-01-04T00:00:${String(second).padStart(2, "0")}.250000Z`;
    await seed(
      Array.from({ length: 14 }, (_, i) => ({
        eventId: `evt_paging_${i}`,
        resource: `ch_paging_${i % 4}`,
        customer: i % 3 === 0 ? "cus_9" : `cus_9${i}`,
        receivedAt: at(Math.floor(i / 2)),
      })),
    );
    await app.pool.query(
      "INSERT INTO payments (provider, gateway_charge_id, status, customer_id) VALUES ('stripe', 'ch_paging_1', 'paid', 'cus_9')",
    );
    const both = async (filter: EventFilter, sort: EventSort, limit: number) => {
      const pages: number[][] = [];
      let cursor: string | undefined;
      let last;
      do {
        last = await listEvents(app.pool, { filter, sort, cursor, limit });
        pages.push(last.rows.map((row) => row.id));
        cursor = last.nextCursor ?? undefined;
      } while (cursor);
      const back: number[][] = [];
      for (let before = last.prevCursor; before;) {
        const page = await listEvents(app.pool, { filter, sort, before, limit });
        back.unshift(page.rows.map((row) => row.id));
        before = page.prevCursor;
      }
      return { pages, back };
    };
    try {
      for (const searchIdsOnly of [false, true]) {
        for (const sort of ["received_desc", "received_asc"] as const) {
          for (const limit of [1, 3, 5]) {
            const alone = await both({ search: "cus_9", searchIdsOnly }, sort, limit);
            const beside = await both({ search: "cus_9", searchIdsOnly, receivedFrom: new Date("2020-01-01T00:00:00Z") }, sort, limit);
            expect(alone).toEqual(beside);
            expect(alone.back).toEqual(alone.pages.slice(0, -1));
            expect(alone.pages.flat()).toHaveLength(searchIdsOnly ? 0 : 14);
          }
        }
      }
      // The exact ones (five naming cus_9, three more through the payment, one both) lead, newest first.
      const { rows } = await listEvents(app.pool, { filter: { search: "cus_9" }, limit: 8 });
      expect(rows.map((row) => row.eventId)).toEqual([
        "evt_paging_13",
        "evt_paging_12",
        "evt_paging_9",
        "evt_paging_6",
        "evt_paging_5",
        "evt_paging_3",
        "evt_paging_1",
        "evt_paging_0",
      ]);
    } finally {
      await app.pool.query("DELETE FROM payments WHERE gateway_charge_id = 'ch_paging_1'");
      await app.pool.query("DELETE FROM webhook_inbox WHERE event_id LIKE 'evt_paging_%'");
    }
  });

  it("finds events by the end or the middle of an event, charge or customer id, whatever its case", async () => {
    await seed([
      { eventId: "evt_1PqRsC1jcW9aBc", resource: "ch_3Zz9YyC1JCW9", receivedAt: "2026-01-03T00:00:00Z" },
      { eventId: "evt_other_sim_104_x", resource: "pay_sim_1049", receivedAt: "2026-01-03T00:00:01Z" },
      { eventId: "evt_pagarme_no_customer", resource: "or_k7Hq2", receivedAt: "2026-01-03T00:00:02Z" },
    ]);
    await app.pool.query(
      "INSERT INTO payments (provider, gateway_charge_id, status, customer_id) VALUES ('stripe', 'or_k7Hq2', 'failed', 'cus_NwA8Kx31')",
    );
    const found = async (search: string, searchIdsOnly = false) =>
      (await listEvents(app.pool, { filter: { search, searchIdsOnly }, limit: 50 })).rows.map((row) => row.eventId).sort();
    // In an event id and a charge id, any case; a masked role searches ids the same way.
    expect(await found("c1jcw9")).toEqual(["evt_1PqRsC1jcW9aBc"]);
    expect(await found("C1JCW9", true)).toEqual(["evt_1PqRsC1jcW9aBc"]);
    // An event id without its "evt_", a charge id's end.
    expect(await found("PqRsC1")).toEqual(["evt_1PqRsC1jcW9aBc"]);
    expect(await found("sim_104")).toEqual(["evt_other_sim_104_x"]);
    expect(await found("im_1049")).toEqual(["evt_other_sim_104_x"]);
    // The index is asked without a term's leading id word (in nearly every row); the whole term still decides.
    expect(await found("cus_104")).toEqual([]);
    expect(await found("OTHER_SIM_104")).toEqual(["evt_other_sim_104_x"]);
    // A customer id's end, through the payment (the event names no customer).
    expect(await found("8Kx31")).toEqual(["evt_pagarme_no_customer"]);
    expect(await found("8Kx31", true)).toEqual([]);
    // Still no part of fewer than three characters.
    expect(await found("W9")).toEqual([]);
    await app.pool.query("DELETE FROM payments WHERE gateway_charge_id = 'or_k7Hq2'");
    await app.pool.query("DELETE FROM webhook_inbox WHERE received_at >= '2026-01-03'");
  });

  it("finds events by a JSON path and value, string or number", async () => {
    const count = async (filter: EventFilter) => (await allPages(filter, "received_desc", 200)).length;
    expect(await count({ jsonPath: "data.object.metadata.order", jsonValue: "A-1" })).toBe(10);
    expect(await count({ jsonPath: "data.object.metadata.priority", jsonValue: "1" })).toBe(30);
    expect(await count({ jsonPath: "data.object.metadata.missing", jsonValue: "1" })).toBe(0);
  });

  it("keeps pending events out of the search indexes, finds them all the same, and reads those indexes for settled ones", async () => {
    const { rows: partial } = await app.pool.query<{ name: string; def: string }>(
      `SELECT relname AS name, pg_get_indexdef(oid) AS def FROM pg_class
        WHERE relname IN ('webhook_inbox_payload_idx', 'webhook_inbox_event_id_trgm_idx', 'webhook_inbox_resource_id_trgm_idx')`,
    );
    expect(partial).toHaveLength(3);
    for (const { def } of partial) expect(def).toContain("<> 'pending'");

    await seed([
      {
        eventId: "evt_pendQx7Zk",
        resource: "ch_pendWq4",
        status: "pending",
        receivedAt: "2026-01-04T00:00:00Z",
        payload: { data: { object: { metadata: { order: "P-9" } } } },
      },
      {
        eventId: "evt_doneQx7Zj",
        resource: "ch_doneWq4",
        status: "processed",
        receivedAt: "2026-01-04T00:00:01Z",
        payload: { data: { object: { metadata: { order: "P-9" } } } },
      },
    ]);
    const found = async (filter: EventFilter) => (await listEvents(app.pool, { filter, limit: 50 })).rows.map((row) => row.eventId).sort();
    expect(await found({ search: "Qx7Z" })).toEqual(["evt_doneQx7Zj", "evt_pendQx7Zk"]);
    expect(await found({ search: "ndWq4" })).toEqual(["evt_pendQx7Zk"]);
    expect(await found({ jsonPath: "data.object.metadata.order", jsonValue: "P-9" })).toEqual(["evt_doneQx7Zj", "evt_pendQx7Zk"]);

    // The plans, with scans of whole tables priced out (this table is small enough to read whole).
    const plan = async (filter: EventFilter) => {
      let statement: { text: string; params: unknown[] } | undefined;
      const recorder = { query: async (text: string, params: unknown[]) => ((statement = { text, params }), { rows: [] }) };
      await listEvents(recorder as unknown as Queryable, { filter, limit: 50 });
      return withTransaction(app.pool, async (client) => {
        await client.query("SET LOCAL enable_seqscan = off");
        const { rows } = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${statement!.text}`, statement!.params);
        return rows.map((row) => row["QUERY PLAN"]).join("\n");
      });
    };
    // An index condition of ILIKE '%part%' is a trigram index's; of @>, the payload's GIN.
    expect(await plan({ search: "Qx7Z" })).toMatch(/Index Cond: \(\(event_id\)::text ~~\* /);
    expect(await plan({ jsonPath: "data.object.metadata.order", jsonValue: "P-9" })).toMatch(/Index Cond: \(payload @> /);
    await app.pool.query("DELETE FROM webhook_inbox WHERE received_at >= '2026-01-04'");
  });

  it("ignores a tampered cursor rather than failing", async () => {
    const page = await listEvents(app.pool, { filter: {}, cursor: "not-a-cursor", limit: 5 });
    expect(page.rows).toHaveLength(5);
  });
});
