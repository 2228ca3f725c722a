import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { zoopDriver } from "./zoop";
import { ParseError } from "./types";

const SECRET = "zoop-hook:Sup3rS3cret";
const NOW = 1_767_000_000;

const transaction = (extra: Record<string, unknown> = {}) => ({
  id: "b7a9d1c4e2f34e0c9d1f2a3b4c5d6e7f",
  resource: "transaction",
  status: "succeeded",
  amount: "10.50",
  currency: "BRL",
  customer: "cus_9f8e7d6c",
  created_at: "2024-06-12T19:45:00+00:00",
  updated_at: "2024-06-12T19:45:03+00:00",
  ...extra,
});
const body = JSON.stringify({
  id: "evt_4f1b2c3d",
  resource: "event",
  type: "transaction.succeeded",
  created_at: "2024-06-12T19:45:04+00:00",
  payload: { object: transaction() },
});
const raw = Buffer.from(body);

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString("base64")}`;

function verify(headers: Record<string, string>, query = "", secrets = [SECRET]) {
  return zoopDriver.verify(raw, headers, { secrets, nowSeconds: NOW, toleranceSeconds: 300, query: new URLSearchParams(query) });
}

describe("zoop verify", () => {
  it("accepts the shared secret as Basic Auth or as a token query parameter", () => {
    expect(verify({ authorization: basic(SECRET) })).toEqual({ ok: true });
    expect(verify({ authorization: `basic ${Buffer.from(SECRET).toString("base64")}` })).toEqual({ ok: true });
    expect(verify({}, `token=${encodeURIComponent(SECRET)}`)).toEqual({ ok: true });
  });

  it("rejects wrong credentials and requests that carry none", () => {
    expect(verify({ authorization: basic("zoop-hook:wrong") })).toEqual({
      ok: false,
      reason: "Basic Auth credentials matches no configured secret",
    });
    expect(verify({}, "token=wrong")).toEqual({ ok: false, reason: "token query parameter matches no configured secret" });
    expect(verify({ authorization: `Bearer ${SECRET}` }).ok).toBe(false);
    expect(verify({})).toMatchObject({ ok: false, reason: expect.stringMatching(/^missing Basic Auth credentials and token/) });
  });

  it("checks Basic Auth when it is there, whatever the query says", () => {
    expect(verify({ authorization: basic("zoop-hook:wrong") }, `token=${encodeURIComponent(SECRET)}`).ok).toBe(false);
  });

  it("accepts either secret during a rotation", () => {
    expect(verify({ authorization: basic("u:old") }, "", ["u:new", "u:old"]).ok).toBe(true);
    expect(verify({}, "token=u%3Anew", ["u:new", "u:old"]).ok).toBe(true);
    expect(verify({}, "token=u%3Aretired", ["u:new", "u:old"]).ok).toBe(false);
  });
});

const context = { headers: {}, query: new URLSearchParams(), timeZone: "America/Sao_Paulo" };
function event(fields: Record<string, unknown>) {
  return Buffer.from(JSON.stringify({ id: "evt_x", type: "transaction.succeeded", payload: { object: transaction() }, ...fields }));
}

// The derived key written out here from its rule: a hash of what identifies the event, never the body.
function derivedKey(resourceId: string, type: string, status: string, occurredAt: string) {
  return `derived:${createHash("sha256").update([resourceId, type, status, occurredAt].join("|")).digest("hex")}`;
}

describe("zoop parse", () => {
  it("normalizes a transaction event, gives its snapshot and still requires a refetch", () => {
    const parsed = zoopDriver.parse(raw, context);
    expect(parsed).toMatchObject({
      eventId: "evt_4f1b2c3d",
      eventIdDerived: false,
      type: "transaction.succeeded",
      resourceId: "b7a9d1c4e2f34e0c9d1f2a3b4c5d6e7f",
      occurredAt: "2024-06-12T19:45:04Z",
      precision: "second",
      customerId: "cus_9f8e7d6c",
      charge: { status: "paid", amount: 1050, currency: "brl", customerId: "cus_9f8e7d6c" },
      refetchRequired: true,
    });
    expect(parsed.payload).toEqual(JSON.parse(body));
  });

  it("falls back to the transaction's updated_at, and takes numeric amounts", () => {
    const parsed = zoopDriver.parse(
      event({ payload: { object: transaction({ amount: 99.9, updated_at: "2024-06-12T16:45:03.120-03:00" }) } }),
      context,
    );
    expect(parsed).toMatchObject({ occurredAt: "2024-06-12T19:45:03.120Z", precision: "millisecond", charge: { amount: 9990 } });
  });

  it("derives a key from the transaction, type, status and time when the event has no id", () => {
    const noId = (order: "a" | "b") => {
      const fields = {
        type: "transaction.failed",
        created_at: "2024-06-12T19:45:04Z",
        payload: { object: transaction({ status: "failed" }) },
      };
      return Buffer.from(
        JSON.stringify(order === "a" ? fields : { payload: fields.payload, created_at: fields.created_at, type: fields.type }),
      );
    };
    const parsed = zoopDriver.parse(noId("a"), context);
    expect(parsed).toMatchObject({
      eventId: derivedKey("b7a9d1c4e2f34e0c9d1f2a3b4c5d6e7f", "transaction.failed", "failed", "2024-06-12T19:45:04Z"),
      eventIdDerived: true,
    });
    // A resend serialized differently is still the same event.
    expect(zoopDriver.parse(noId("b"), context).eventId).toBe(parsed.eventId);
  });

  it.each([
    ["transaction.created", "pending"],
    ["transaction.pending", "pending"],
    ["transaction.pre_authorized", "authorized"],
    ["transaction.succeeded", "paid"],
    ["transaction.failed", "failed"],
    ["transaction.canceled", "canceled"],
    ["transaction.reversed", "refunded"],
    ["transaction.refunded", "refunded"],
    ["transaction.disputed", "disputed"],
    ["transaction.charged_back", "charged_back"],
  ])("maps %s to %s", (type, status) => {
    const parsed = zoopDriver.parse(event({ type }), context);
    expect(parsed.charge?.status).toBe(status);
    expect(parsed.refetchRequired).toBe(true);
  });

  it("keeps other events with no resource and nothing to refetch", () => {
    const seller = zoopDriver.parse(event({ type: "seller.activated", payload: { object: { id: "sel_1", resource: "seller" } } }), context);
    expect(seller).toMatchObject({ resourceId: null, charge: null, refetchRequired: false, occurredAt: null, precision: null });
    expect(zoopDriver.parse(event({ type: "transaction.updated" }), context)).toMatchObject({ charge: null, refetchRequired: true });
  });

  it("throws ParseError on bodies that are not Zoop events or can't be keyed", () => {
    expect(() => zoopDriver.parse(Buffer.from("[]"), context)).toThrow(ParseError);
    expect(() => zoopDriver.parse(event({ payload: { object: { resource: "transaction" } } }), context)).toThrow(ParseError);
    expect(() => zoopDriver.parse(event({ created_at: "12/06/2024" }), context)).toThrow(ParseError);
    expect(() => zoopDriver.parse(event({ payload: { object: transaction({ amount: "R$ 10,50" }) } }), context)).toThrow(ParseError);
    const noIdNoTime = { type: "transaction.succeeded", payload: { object: transaction({ updated_at: undefined }) } };
    expect(() => zoopDriver.parse(Buffer.from(JSON.stringify(noIdNoTime)), context)).toThrow(ParseError);
  });
});

describe("zoop refetch", () => {
  async function refetch(body: Record<string, unknown>) {
    const paths: string[] = [];
    const snapshot = await zoopDriver.refetch!(
      "b7a9d1c4e2f34e0c9d1f2a3b4c5d6e7f",
      async (path) => {
        paths.push(path);
        return body;
      },
      { credentials: { apiKey: "zpk_test", marketplaceId: "3249465a7753536b62545a6a684b0000" } },
    );
    expect(paths).toEqual(["/marketplaces/3249465a7753536b62545a6a684b0000/transactions/b7a9d1c4e2f34e0c9d1f2a3b4c5d6e7f"]);
    return snapshot;
  }

  it("GETs the transaction and maps it to cents", async () => {
    expect(await refetch(transaction({ amount: "1234.56" }))).toEqual({
      status: "paid",
      amount: 123456,
      currency: "brl",
      customerId: "cus_9f8e7d6c",
    });
  });

  it.each([
    ["pending", "pending"],
    ["pre_authorized", "authorized"],
    ["succeeded", "paid"],
    ["failed", "failed"],
    ["canceled", "canceled"],
    ["reversed", "refunded"],
    ["refunded", "refunded"],
    ["dispute", "disputed"],
    ["charged_back", "charged_back"],
  ])("maps %s to %s", async (gatewayStatus, status) => {
    expect((await refetch(transaction({ status: gatewayStatus }))).status).toBe(status);
  });

  it("rejects an unknown status or a body that is not a transaction", async () => {
    await expect(refetch(transaction({ status: "new_status" }))).rejects.toThrow(ParseError);
    await expect(refetch({ error: { status_code: 404 } })).rejects.toThrow(ParseError);
  });
});
