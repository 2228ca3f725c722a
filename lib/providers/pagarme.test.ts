import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { pagarmeDriver } from "./pagarme";
import { ParseError } from "./types";

const SECRET = "ak_test_pagarme_key";
const NOW = 1_767_000_000;

// Shaped on Pagar.me's documented order.paid webhook example.
const charge = (extra: Record<string, unknown> = {}) => ({
  id: "ch_d22356Jf4WuGr8no",
  code: "1303624",
  amount: 12356,
  currency: "BRL",
  status: "paid",
  customer: { id: "cus_oy23JRQCM1cvzlmD", email: "fabio@example.com" },
  ...extra,
});
const body = JSON.stringify({
  id: "hook_RyEKQO789TRpZjv5",
  account: { id: "acc_jZkdN857et650oNv", name: "Lojinha" },
  type: "order.paid",
  created_at: "2017-06-29T20:23:47",
  data: {
    id: "or_ZdnB5BBCmYhk534R",
    amount: 12356,
    currency: "BRL",
    status: "paid",
    customer: { id: "cus_oy23JRQCM1cvzlmD", email: "fabio@example.com" },
    charges: [charge({ customer: undefined })],
  },
});
const raw = Buffer.from(body);

// Computed here from the documented rule, independently of the driver.
function hubSignature(secret: string, payload: string) {
  return `sha1=${createHmac("sha1", secret).update(payload).digest("hex")}`;
}
const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString("base64")}`;

// The legacy schemes, opted into (PAGARME_SIGNATURES=hub-signature,basic).
function verify(headers: Record<string, string>, secrets = [SECRET], payload = raw, schemes = "hub-signature,basic") {
  const settings = pagarmeDriver.settings!.parse({ PAGARME_SIGNATURES: schemes });
  return pagarmeDriver.verify(payload, headers, {
    secrets,
    nowSeconds: NOW,
    toleranceSeconds: 300,
    query: new URLSearchParams(),
    settings,
  });
}

describe("pagarme verify", async () => {
  it("accepts an X-Hub-Signature computed by the documented rule", async () => {
    expect(await verify({ "x-hub-signature": hubSignature(SECRET, body) })).toEqual({ ok: true });
    expect((await verify({ "x-hub-signature": hubSignature(SECRET, body).toUpperCase().replace("SHA1=", "sha1=") }))?.ok).toBe(true);
  });

  it("rejects a wrong secret, a tampered body, and a missing or malformed header", async () => {
    expect(await verify({ "x-hub-signature": hubSignature("ak_other", body) })).toEqual({
      ok: false,
      reason: "X-Hub-Signature matches no configured secret",
    });
    expect(
      (await verify({ "x-hub-signature": hubSignature(SECRET, body) }, [SECRET], Buffer.from(body.replace("12356", "12357"))))?.ok,
    ).toBe(false);
    expect(await verify({})).toEqual({
      ok: false,
      reason: "missing X-Hub-Signature header or Basic Auth credentials (the schemes PAGARME_SIGNATURES accepts)",
    });
    expect((await verify({ "x-hub-signature": createHmac("sha1", SECRET).update(body).digest("hex") }))?.ok).toBe(false);
    expect((await verify({ "x-hub-signature": `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}` }))?.ok).toBe(false);
  });

  it("accepts Basic Auth credentials equal to a configured user:pass, in constant time", async () => {
    expect(await verify({ authorization: basic("webhook:s3cret") }, ["webhook:s3cret"])).toEqual({ ok: true });
    expect(await verify({ authorization: basic("webhook:wrong") }, ["webhook:s3cret"])).toEqual({
      ok: false,
      reason: "Basic Auth credentials matches no configured secret",
    });
    expect((await verify({ authorization: "Bearer webhook:s3cret" }, ["webhook:s3cret"]))?.ok).toBe(false);
  });

  it("checks the HMAC when the header is there, whatever Basic Auth says", async () => {
    const headers = { "x-hub-signature": hubSignature("ak_other", body), authorization: basic("webhook:s3cret") };
    expect((await verify(headers, [SECRET, "webhook:s3cret"]))?.ok).toBe(false);
  });

  it("accepts either secret during a rotation, for both schemes", async () => {
    const secrets = ["ak_new", "ak_old"];
    expect((await verify({ "x-hub-signature": hubSignature("ak_old", body) }, secrets))?.ok).toBe(true);
    expect((await verify({ "x-hub-signature": hubSignature("ak_new", body) }, secrets))?.ok).toBe(true);
    expect((await verify({ "x-hub-signature": hubSignature("ak_retired", body) }, secrets))?.ok).toBe(false);
    expect((await verify({ authorization: basic("u:old") }, ["u:new", "u:old"]))?.ok).toBe(true);
    expect((await verify({ authorization: basic("u:new") }, ["u:new", "u:old"]))?.ok).toBe(true);
  });
});

it("accepts no legacy scheme unless it is opted into", async () => {
  expect(await verify({ "x-hub-signature": hubSignature(SECRET, body) }, [SECRET], raw, "rs256")).toEqual({
    ok: false,
    reason: "missing X-Webhook-Asymmetric-Signature header (the schemes PAGARME_SIGNATURES accepts)",
  });
  expect((await verify({ authorization: basic("webhook:s3cret") }, ["webhook:s3cret"], raw, "rs256,hub-signature")).ok).toBe(false);
});

const context = (timeZone = "America/Sao_Paulo") => ({ headers: {}, query: new URLSearchParams(), timeZone });
function event(type: string, data: Record<string, unknown>, createdAt = "2024-06-12T16:45:03") {
  return Buffer.from(JSON.stringify({ id: "hook_x", type, created_at: createdAt, data }));
}

describe("pagarme parse", () => {
  it("normalizes the documented order.paid example: key, first charge, customer, zone-less time", () => {
    const parsed = pagarmeDriver.parse(raw, context());
    expect(parsed).toMatchObject({
      eventId: "hook_RyEKQO789TRpZjv5",
      eventIdDerived: false,
      type: "order.paid",
      resourceId: "ch_d22356Jf4WuGr8no",
      // 20:23:47 in São Paulo (UTC-3 in June 2017) is 23:23:47 UTC.
      occurredAt: "2017-06-29T23:23:47Z",
      precision: "second",
      customerId: "cus_oy23JRQCM1cvzlmD",
      customerEmail: "fabio@example.com",
      charge: { status: "paid", amount: 12356, currency: "brl" },
      refetchRequired: false,
    });
    expect(parsed.payload).toEqual(JSON.parse(body));
  });

  it("reads zone-less times in the configured zone and zoned times as they are", () => {
    expect(pagarmeDriver.parse(raw, context("UTC")).occurredAt).toBe("2017-06-29T20:23:47Z");
    const zoned = pagarmeDriver.parse(event("charge.paid", charge(), "2024-06-12T16:45:03.250Z"), context());
    expect(zoned).toMatchObject({ occurredAt: "2024-06-12T16:45:03.250Z", precision: "millisecond" });
  });

  it.each([
    ["charge.pending", charge({ status: "pending" }), "pending"],
    ["charge.processing", charge({ status: "processing" }), "pending"],
    ["charge.paid", charge(), "paid"],
    ["charge.overpaid", charge({ status: "overpaid" }), "paid"],
    ["charge.payment_failed", charge({ status: "failed" }), "failed"],
    ["charge.refunded", charge({ status: "canceled", canceled_amount: 12356 }), "refunded"],
    ["charge.refunded", charge({ status: "canceled", canceled_amount: 2000 }), "partially_refunded"],
    ["charge.refunded", charge({ status: "refunded" }), "refunded"],
    ["charge.partial_canceled", charge({ canceled_amount: 2000 }), "partially_refunded"],
    ["charge.chargedback", charge({ status: "chargedback" }), "charged_back"],
  ])("maps %s to %s", (type, data, status) => {
    const parsed = pagarmeDriver.parse(event(type, data), context());
    expect(parsed.charge?.status).toBe(status);
    expect(parsed.resourceId).toBe("ch_d22356Jf4WuGr8no");
  });

  it.each([
    ["order.paid", "paid"],
    ["order.payment_failed", "failed"],
    ["order.canceled", "canceled"],
  ])("maps %s to %s through the order's first charge", (type, status) => {
    const order = {
      id: "or_1",
      customer: { id: "cus_1" },
      charges: [charge({ id: "ch_first", customer: undefined }), charge({ id: "ch_second" })],
    };
    const parsed = pagarmeDriver.parse(event(type, order), context());
    expect(parsed).toMatchObject({ resourceId: "ch_first", customerId: "cus_1", charge: { status } });
  });

  it("keeps other types and chargeless orders with no charge state; a type naming no state takes the charge's", () => {
    expect(pagarmeDriver.parse(event("order.paid", { id: "or_1", charges: [] }), context())).toMatchObject({
      resourceId: null,
      charge: null,
    });
    expect(pagarmeDriver.parse(event("customer.created", { id: "cus_1", name: "Ana" }), context())).toMatchObject({
      resourceId: null,
      charge: null,
    });
    expect(pagarmeDriver.parse(event("charge.antifraud_approved", charge()), context())).toMatchObject({
      resourceId: "ch_d22356Jf4WuGr8no",
      charge: { status: "paid" },
    });
  });

  it("throws ParseError on bodies that are not Pagar.me events", () => {
    expect(() => pagarmeDriver.parse(Buffer.from("id=1&current_status=paid"), context())).toThrow(ParseError);
    expect(() => pagarmeDriver.parse(Buffer.from('{"id":"hook_1","type":"charge.paid"}'), context())).toThrow(ParseError);
    expect(() => pagarmeDriver.parse(event("charge.paid", charge(), "29/06/2017 20:23"), context())).toThrow(ParseError);
    expect(() => pagarmeDriver.parse(event("charge.paid", { amount: 100 }), context())).toThrow(ParseError);
  });
});

describe("pagarme refetch", () => {
  async function refetch(body: Record<string, unknown>) {
    const paths: string[] = [];
    const snapshot = await pagarmeDriver.refetch!(
      "ch_1/x",
      async (path) => {
        paths.push(path);
        return body;
      },
      {},
    );
    expect(paths).toEqual(["/charges/ch_1%2Fx"]);
    return snapshot;
  }

  it("GETs the charge and maps it, amounts already in cents", async () => {
    expect(await refetch(charge({ paid_amount: 12356 }))).toEqual({
      status: "paid",
      amount: 12356,
      currency: "brl",
      customerId: "cus_oy23JRQCM1cvzlmD",
      customerEmail: "fabio@example.com",
    });
  });

  it.each([
    [{ status: "pending" }, "pending"],
    [{ status: "processing" }, "pending"],
    [{ status: "underpaid" }, "paid"],
    [{ status: "paid" }, "paid"],
    [{ status: "overpaid" }, "paid"],
    [{ status: "failed" }, "failed"],
    [{ status: "canceled", canceled_amount: 12356 }, "canceled"],
    [{ status: "canceled", paid_amount: 12356, canceled_amount: 12356 }, "refunded"],
    [{ status: "canceled", paid_amount: 12356, canceled_amount: 356 }, "partially_refunded"],
    [{ status: "paid", paid_amount: 12356, canceled_amount: 356 }, "partially_refunded"],
    [{ status: "refunded", refunded_amount: 12356 }, "refunded"],
    [{ status: "refunded", refunded_amount: 356 }, "partially_refunded"],
    [{ status: "chargedback" }, "charged_back"],
  ])("maps %o to %s", async (fields, status) => {
    expect((await refetch(charge(fields))).status).toBe(status);
  });

  it("rejects an unknown status or a body that is not a charge", async () => {
    await expect(refetch(charge({ status: "with_error" }))).rejects.toThrow(ParseError);
    await expect(refetch({ message: "Charge not found" })).rejects.toThrow(ParseError);
  });
});
