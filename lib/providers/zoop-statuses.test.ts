import { describe, expect, it } from "vitest";
import { documentedRows, readFixture, variant } from "@/lib/testing/gateway-fixtures";
import type { ChargeSnapshot } from "../canonical/charge-event";
import type { GatewayFetch } from "./types";
import { zoopTransactionVoidedAfterCapture } from "./fixtures/zoop/transaction-voided-after-capture";
import { zoopDriver } from "./zoop";

// One case per row of docs/gateways.md's Zoop table, each on Zoop's own payloads as zoop-wrapper
// recorded them: a transaction.succeeded event (the transaction under payload.object), the published
// transaction.failed (directly under payload, beside its error) and transaction.pre_authorization.succeeded
// (under a top-level object), a void of a captured transaction and a transaction list, varied only in
// the fields each row is about. The library blanks the published events' ids: the tests fill them in.

type Transaction = Record<string, unknown> & { id: string; status: string };
type Envelope = Record<string, unknown> & { id: string; type: string };

const succeededEvent = readFixture<Envelope & { payload: { object: Transaction } }>("zoop/transaction-succeeded-event.json");
const failedEvent = readFixture<Envelope & { payload: Transaction }>("zoop/transaction-failed-event.json");
const preAuthEvent = readFixture<Envelope & { object: Transaction }>("zoop/transaction-pre-authorization-succeeded-event.json");
const list = readFixture<{ items: Transaction[] }>("zoop/list-transactions.json");

const FAILED_ID = "5c4b3a2918f74e6d9c0b1a2f3e4d5c6b";
const succeeded = succeededEvent.payload.object;
const failed = variant(failedEvent.payload, { id: FAILED_ID });
const preAuthorized = variant(preAuthEvent.object, { id: "9e8d7c6b5a4f43e2b1a0f9e8d7c6b5a4" });
const context = { headers: {}, query: new URLSearchParams(), timeZone: "UTC" };

function parse(body: object) {
  return zoopDriver.parse(Buffer.from(JSON.stringify(body)), context);
}
/** The recorded transaction.succeeded envelope, as an event of `type` about `transaction`. */
const eventOf = (type: string, transaction: Transaction = succeeded) =>
  parse(variant(succeededEvent, { type, payload: { object: transaction } }));
const statusOf = (type: string, transaction?: Transaction) => eventOf(type, transaction).charge?.status ?? null;

/** GET /transactions/{id} answering `transaction`. */
const refetched = (transaction: object): Promise<ChargeSnapshot> =>
  zoopDriver.refetch!("any", (async () => transaction) as GatewayFetch, { credentials: { marketplaceId: "mkt" } });

const status =
  (value: string, expected: string, fields: Partial<Transaction> = {}) =>
  async () => {
    expect((await refetched(variant(succeeded, { status: value, ...fields }))).status).toBe(expected);
  };
const namedEvent = (type: string, transaction: Transaction, expected: string) => () => {
  expect(eventOf(type, transaction)).toMatchObject({ resourceId: transaction.id, charge: { status: expected }, refetchRequired: true });
};
/** A type that names no state: the transaction is refetched and its own status decides. */
const ownStatusEvent = (type: string) => () => {
  expect(eventOf(type)).toMatchObject({ resourceId: succeeded.id, charge: null, refetchRequired: true });
};
const voidedCaptured = zoopTransactionVoidedAfterCapture as unknown as Transaction;
const voidedBeforeCapture = variant(voidedCaptured, { captured: false });

const cases: Record<string, () => void | Promise<void>> = {
  "transaction status: new": status("new", "pending", { captured: false }),
  "transaction status: pending": status("pending", "pending", { captured: false }),
  "transaction status: pre_authorized": async () => {
    expect(await refetched(preAuthorized)).toMatchObject({ status: "authorized", amount: 1499 });
  },
  "transaction status: succeeded": async () => {
    expect(await refetched(succeeded)).toMatchObject({ status: "paid", amount: 148434, currency: "brl" });
  },
  "transaction status: failed": async () => {
    // Failed with `captured: true`, as recorded: no money was taken.
    expect(await refetched(failed)).toMatchObject({ status: "failed", amount: 1005 });
    expect(await refetched(list.items[0]!)).toMatchObject({ status: "failed", amount: 2000 });
  },
  "transaction status: canceled": async () => {
    expect(await refetched(voidedCaptured)).toMatchObject({ status: "refunded", amountRefunded: 500 });
    expect(await refetched(voidedBeforeCapture)).toMatchObject({ status: "canceled" });
  },
  "transaction status: reversed": status("reversed", "refunded"),
  "transaction status: refunded": async () => {
    expect(await refetched(variant(voidedCaptured, { status: "refunded" }))).toMatchObject({ status: "refunded", amountRefunded: 500 });
  },
  "transaction status: partial_refunded": async () => {
    const history = voidedCaptured.history as Record<string, unknown>[];
    const partVoided = history.map((entry) => (entry.operation_type === "void" ? variant(entry, { amount: "2.00" }) : entry));
    expect(await refetched(variant(voidedCaptured, { status: "partial_refunded", history: partVoided }))).toMatchObject({
      status: "partially_refunded",
      amountRefunded: 200,
    });
    // No void says how much: partly refunded all the same, the amount left unstated.
    const unstated = await refetched(variant(succeeded, { status: "partial_refunded", refunded: true }));
    expect(unstated).toMatchObject({ status: "partially_refunded" });
    expect(unstated.amountRefunded).toBeUndefined();
  },
  "transaction status: dispute": status("dispute", "disputed"),
  "transaction status: charged_back": status("charged_back", "charged_back"),
  "event: transaction.created": namedEvent("transaction.created", variant(succeeded, { status: "pending", captured: false }), "pending"),
  "event: transaction.updated": ownStatusEvent("transaction.updated"),
  "event: transaction.pre_authorized": namedEvent("transaction.pre_authorized", preAuthorized, "authorized"),
  "event: transaction.pre_authorization.succeeded": () => {
    // The published envelope: the transaction under a top-level object, no payload.
    expect(parse(variant(preAuthEvent, { object: preAuthorized }))).toMatchObject({
      type: "transaction.pre_authorization.succeeded",
      resourceId: preAuthorized.id,
      eventIdDerived: true,
      occurredAt: "2020-06-26T12:20:18Z",
      charge: { status: "authorized", amount: 1499 },
    });
  },
  "event: transaction.pre_authorization.failed": namedEvent(
    "transaction.pre_authorization.failed",
    variant(preAuthorized, { status: "failed" }),
    "failed",
  ),
  "event: transaction.capture.succeeded": namedEvent("transaction.capture.succeeded", succeeded, "paid"),
  "event: transaction.capture.failed": ownStatusEvent("transaction.capture.failed"),
  "event: transaction.succeeded": () => {
    expect(parse(succeededEvent)).toMatchObject({
      eventId: "cf4679634d4e4b6dbc9fa8990c8f01f9",
      resourceId: "32df0dd9c57143ef8cc46924f4ba9e98",
      occurredAt: "2020-07-06T14:01:51Z",
      customerId: "94fdd48e890845ae8fe1c016e2579273",
      charge: { status: "paid", amount: 148434 },
    });
  },
  "event: transaction.failed": () => {
    // The published envelope: the transaction directly under payload beside its error, its event id
    // blank (so derived from the transaction, type, status and time).
    expect(parse(variant(failedEvent, { payload: failed }))).toMatchObject({
      type: "transaction.failed",
      eventIdDerived: true,
      resourceId: FAILED_ID,
      occurredAt: "2020-06-25T18:03:27Z",
      charge: { status: "failed", amount: 1005, currency: "brl" },
      refetchRequired: true,
    });
  },
  "event: transaction.canceled": () => {
    expect(statusOf("transaction.canceled", voidedCaptured)).toBe("refunded");
    expect(statusOf("transaction.canceled", voidedBeforeCapture)).toBe("canceled");
  },
  "event: transaction.void.succeeded": () => {
    expect(eventOf("transaction.void.succeeded", voidedCaptured).charge).toMatchObject({ status: "refunded", amountRefunded: 500 });
    expect(statusOf("transaction.void.succeeded", voidedBeforeCapture)).toBe("canceled");
  },
  "event: transaction.void.failed": ownStatusEvent("transaction.void.failed"),
  "event: transaction.reversed": namedEvent("transaction.reversed", variant(succeeded, { status: "reversed" }), "refunded"),
  "event: transaction.disputed": namedEvent("transaction.disputed", variant(succeeded, { status: "dispute" }), "disputed"),
  "event: transaction.dispute.succeeded": ownStatusEvent("transaction.dispute.succeeded"),
  "event: transaction.charged_back": namedEvent("transaction.charged_back", variant(succeeded, { status: "charged_back" }), "charged_back"),
  "event: transaction.commission.succeeded": ownStatusEvent("transaction.commission.succeeded"),
  "event: transaction.pending": namedEvent("transaction.pending", variant(succeeded, { status: "pending", captured: false }), "pending"),
  "event: transaction.refunded": namedEvent("transaction.refunded", variant(voidedCaptured, { status: "refunded" }), "refunded"),
  "event: buyer.transaction.*": () => {
    const twins = ["canceled", "charged_back", "commission.succeeded", "created", "dispute.succeeded", "disputed", "failed"];
    for (const name of [...twins, "pre_authorized", "reversed", "succeeded", "updated"]) {
      const own = eventOf(`transaction.${name}`);
      expect(eventOf(`buyer.transaction.${name}`)).toMatchObject({ resourceId: own.resourceId, charge: own.charge, refetchRequired: true });
    }
  },
  "event: seller.created": () => {
    const seller = { id: "de9bddee5f9f436d909e7bafaa43af24", resource: "seller", status: "pending" };
    expect(parse(variant(succeededEvent, { type: "seller.created", payload: { object: seller as unknown as Transaction } }))).toMatchObject(
      {
        resourceId: null,
        charge: null,
        refetchRequired: false,
      },
    );
  },
};

describe("Zoop's documented statuses and event types", () => {
  it("has one case per row of docs/gateways.md's Zoop table, and no other", () => {
    expect(Object.keys(cases).sort()).toEqual(documentedRows("Zoop").sort());
  });

  it.each(Object.entries(cases))("%s", async (_row, check) => {
    await check();
  });
});

describe("Zoop's transaction list, as recorded", () => {
  // Page 1 of 27: has_more, 100 a page, and total and query_count written as strings.
  const recorded = readFixture<Record<string, unknown>>("zoop/list-transactions.json");
  const page = (answer: object, pageSize = 100, pageToken: string | null = null) =>
    zoopDriver.lister!.listPage((async () => answer) as GatewayFetch, {
      since: new Date("2019-02-01T00:00:00Z"),
      until: new Date("2019-03-01T00:00:00Z"),
      pageSize,
      pageToken,
    });

  it("reads the counts as strings or numbers and pages past page 1", async () => {
    const first = await page(recorded);
    expect(first.items).toMatchObject([
      { kind: "resource", resourceId: "0f80edb928c745be9200de06fa5697fb", snapshot: { status: "failed" } },
    ]);
    // The next page starts after what was received, whatever was asked for.
    expect(first.nextPageToken).toBe("1");
    expect((await page(recorded, 500, "200")).nextPageToken).toBe("201");
    expect((await page(variant(recorded, { total: 2666, query_count: 2666 }))).nextPageToken).toBe("1");
  });

  it("ends at the last page, and on an empty one", async () => {
    expect((await page(variant(recorded, { has_more: false }))).nextPageToken).toBeNull();
    expect((await page(variant(recorded, { items: [] }))).nextPageToken).toBeNull();
    const { has_more: _hasMore, ...withoutHasMore } = recorded;
    expect((await page({ ...withoutHasMore, total: "1" })).nextPageToken).toBeNull();
    expect((await page({ ...withoutHasMore, total: "2666" })).nextPageToken).toBe("1");
  });
});
