import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { mercadopagoDriver } from "./mercadopago";
import { ParseError } from "./types";

const SECRET = "mp_webhook_secret";
const NOW = 1_716_651_000;
const REQUEST_ID = "f7b2a1d4-0b1c-4ec2-aaaa-9e8b1d2f3c4d";
const DATA_ID = "1234567890";

// Shaped on Mercado Pago's payment notification example.
const body = JSON.stringify({
  id: 112233445566,
  live_mode: true,
  type: "payment",
  date_created: "2026-05-25T13:01:08.000-03:00",
  user_id: 987654321,
  api_version: "v1",
  action: "payment.updated",
  data: { id: DATA_ID },
});
const raw = Buffer.from(body);

// The manifest and HMAC written out here from the documented template, independently of the driver.
function signature(secret: string, ts: string | number, manifest: string) {
  return `ts=${ts},v1=${createHmac("sha256", secret).update(manifest).digest("hex")}`;
}
const standardSignature = (secret = SECRET, ts: string | number = NOW) =>
  signature(secret, ts, `id:${DATA_ID};request-id:${REQUEST_ID};ts:${ts};`);

// requestId null: the request carries no x-request-id header.
// A notification that names no data.id in its body, for the manifest rules alone.
const idlessRaw = Buffer.from(JSON.stringify({ ...JSON.parse(body), data: {} }));

function verify(
  xSignature: string | undefined,
  { secrets = [SECRET], query = `data.id=${DATA_ID}&type=payment`, requestId = REQUEST_ID as string | null, payload = raw } = {},
) {
  const headers: Record<string, string> = {};
  if (xSignature !== undefined) headers["x-signature"] = xSignature;
  if (requestId !== null) headers["x-request-id"] = requestId;
  return mercadopagoDriver.verify(payload, headers, { secrets, nowSeconds: NOW, toleranceSeconds: 300, query: new URLSearchParams(query) });
}

describe("mercadopago verify", () => {
  it("accepts a signature over the documented manifest", () => {
    // The signed request id and ts come back as the nonce ingest remembers.
    expect(verify(standardSignature())).toEqual({ ok: true, nonce: expect.stringMatching(/\|\d+$/) });
    expect(verify(standardSignature().replace(",", ", "))).toMatchObject({ ok: true });
  });

  it("rejects a wrong secret, a tampered data.id or request id, and a missing or malformed header", () => {
    expect(verify(standardSignature("other"))).toEqual({ ok: false, reason: "no v1 signature matches any configured secret" });
    expect(verify(standardSignature(), { query: "data.id=999&type=payment" }).ok).toBe(false);
    expect(verify(standardSignature(), { requestId: "another-request" }).ok).toBe(false);
    expect(verify(undefined)).toEqual({ ok: false, reason: "missing x-signature header" });
    expect(verify(`v1=${"a".repeat(64)}`).ok).toBe(false);
    expect(verify(`ts=${NOW}`).ok).toBe(false);
    expect(verify(`ts=yesterday,v1=${"a".repeat(64)}`).ok).toBe(false);
  });

  it("leaves missing parts out of the manifest entirely", () => {
    expect(verify(signature(SECRET, NOW, `request-id:${REQUEST_ID};ts:${NOW};`), { query: "", payload: idlessRaw }).ok).toBe(true);
    expect(verify(signature(SECRET, NOW, `id:${DATA_ID};ts:${NOW};`), { requestId: null }).ok).toBe(true);
    expect(verify(signature(SECRET, NOW, `id:;request-id:${REQUEST_ID};ts:${NOW};`), { query: "", payload: idlessRaw }).ok).toBe(false);
  });

  it("lower-cases an alphanumeric data.id and keeps any other as sent", () => {
    expect(
      verify(signature(SECRET, NOW, `id:abc123def;request-id:${REQUEST_ID};ts:${NOW};`), { query: "data.id=ABC123DEF", payload: idlessRaw })
        .ok,
    ).toBe(true);
    expect(
      verify(signature(SECRET, NOW, `id:ABC-12;request-id:${REQUEST_ID};ts:${NOW};`), { query: "data.id=ABC-12", payload: idlessRaw }).ok,
    ).toBe(true);
  });

  // The documented example notification (body data.id "1234567890"), signed for another payment: only
  // the query's data.id is in the manifest, so the signature is valid; the body must not be believed.
  it("refuses a body whose data.id differs from the signed one, or names one the query doesn't sign", () => {
    const signedOther = signature(SECRET, NOW, `id:999;request-id:${REQUEST_ID};ts:${NOW};`);
    expect(verify(signedOther, { query: "data.id=999&type=payment" })).toEqual({
      ok: false,
      reason: "the body's data.id differs from the signed data.id (query string)",
    });
    const unsigned = verify(signature(SECRET, NOW, `request-id:${REQUEST_ID};ts:${NOW};`), { query: "" });
    expect(unsigned.ok).toBe(false);
    // The same id, as the body and the query write it (the manifest lower-cases alphanumeric ids).
    const mixedCase = Buffer.from(JSON.stringify({ ...JSON.parse(body), data: { id: "ABC123" } }));
    expect(
      verify(signature(SECRET, NOW, `id:abc123;request-id:${REQUEST_ID};ts:${NOW};`), { query: "data.id=ABC123", payload: mixedCase }).ok,
    ).toBe(true);
  });

  it("rejects timestamps outside the tolerance, in seconds and in milliseconds", () => {
    const stale = verify(standardSignature(SECRET, NOW - 301));
    const future = verify(standardSignature(SECRET, NOW + 301));
    expect(!stale.ok && stale.reason).toMatch(/301s old/);
    expect(!future.ok && future.reason).toMatch(/in the future/);
    expect(verify(standardSignature(SECRET, NOW - 300)).ok).toBe(true);
    expect(verify(standardSignature(SECRET, NOW * 1000 + 999)).ok).toBe(true);
    expect(verify(standardSignature(SECRET, (NOW - 301) * 1000)).ok).toBe(false);
  });

  it("accepts either secret during a rotation", () => {
    expect(verify(standardSignature("old"), { secrets: ["new", "old"] }).ok).toBe(true);
    expect(verify(standardSignature("new"), { secrets: ["new", "old"] }).ok).toBe(true);
    expect(verify(standardSignature("retired"), { secrets: ["new", "old"] }).ok).toBe(false);
  });
});

const context = (query = "") => ({ headers: {}, query: new URLSearchParams(query), timeZone: "America/Sao_Paulo" });
const notification = (fields: Record<string, unknown>) =>
  Buffer.from(JSON.stringify({ id: 1, date_created: "2026-05-25T13:01:08.000-03:00", ...fields }));

describe("mercadopago parse", () => {
  it("normalizes a payment notification as a notice that requires a refetch", () => {
    const parsed = mercadopagoDriver.parse(raw, context(`data.id=${DATA_ID}&type=payment`));
    expect(parsed).toMatchObject({
      eventId: "112233445566",
      eventIdDerived: false,
      type: "payment.updated",
      resourceId: DATA_ID,
      occurredAt: "2026-05-25T16:01:08.000Z",
      precision: "millisecond",
      customerId: null,
      charge: null,
      refetchRequired: true,
    });
    expect(parsed.payload).toEqual(JSON.parse(body));
  });

  it("falls back to type for the event type, and acts on the signed (query) data.id, never the body's", () => {
    expect(mercadopagoDriver.parse(notification({ type: "payment", data: { id: 42 } }), context("data.id=42"))).toMatchObject({
      type: "payment",
      resourceId: "42",
    });
    expect(mercadopagoDriver.parse(notification({ type: "payment", data: { id: 42 } }), context())).toMatchObject({
      resourceId: null,
      refetchRequired: false,
    });
    expect(mercadopagoDriver.parse(notification({ action: "payment.created", type: "payment" }), context("data.id=77"))).toMatchObject({
      resourceId: "77",
      refetchRequired: true,
    });
  });

  it("names no payment for other topics", () => {
    const parsed = mercadopagoDriver.parse(
      notification({ action: "merchant_order.updated", type: "topic_merchant_order_wh", data: { id: "9" } }),
      context(),
    );
    expect(parsed).toMatchObject({ resourceId: null, refetchRequired: false, charge: null });
  });

  it("throws ParseError on bodies that are not notifications", () => {
    expect(() => mercadopagoDriver.parse(Buffer.from("topic=payment&id=1"), context())).toThrow(ParseError);
    expect(() => mercadopagoDriver.parse(notification({ data: { id: "1" } }), context())).toThrow(ParseError);
    expect(() =>
      mercadopagoDriver.parse(notification({ action: "payment.updated", date_created: "2026-05-25 13:01:08" }), context()),
    ).toThrow(ParseError);
    expect(() => mercadopagoDriver.parse(Buffer.from('{"action":"payment.updated"}'), context())).toThrow(ParseError);
  });
});

describe("mercadopago refetch", () => {
  const payment = (extra: Record<string, unknown> = {}) => ({
    id: 1234567890,
    status: "approved",
    status_detail: "accredited",
    transaction_amount: 150.75,
    transaction_amount_refunded: 0,
    currency_id: "BRL",
    payer: { id: "123456789", email: "ana@example.com" },
    ...extra,
  });
  async function refetch(body: Record<string, unknown>) {
    const paths: string[] = [];
    const snapshot = await mercadopagoDriver.refetch!(
      DATA_ID,
      async (path) => {
        paths.push(path);
        return body;
      },
      {},
    );
    expect(paths).toEqual([`/v1/payments/${DATA_ID}`]);
    return snapshot;
  }

  it("GETs the payment and maps it, decimal amounts to cents", async () => {
    expect(await refetch(payment())).toEqual({
      status: "paid",
      amount: 15075,
      amountRefunded: 0,
      currency: "brl",
      customerId: "123456789",
      customerEmail: "ana@example.com",
    });
  });

  it("reads decimal amounts by the currency's minor unit: whole pesos in Chile", async () => {
    expect(await refetch(payment({ currency_id: "CLP", transaction_amount: 15000, transaction_amount_refunded: 0 }))).toMatchObject({
      amount: 15000,
      currency: "clp",
    });
  });

  it.each([
    [{ status: "pending" }, "pending"],
    [{ status: "in_process" }, "pending"],
    [{ status: "authorized" }, "authorized"],
    [{ status: "approved" }, "paid"],
    [{ status: "approved", transaction_amount_refunded: 50 }, "partially_refunded"],
    [{ status: "rejected" }, "failed"],
    [{ status: "cancelled" }, "canceled"],
    [{ status: "refunded", transaction_amount_refunded: 150.75 }, "refunded"],
    [{ status: "refunded", transaction_amount_refunded: 50 }, "partially_refunded"],
    [{ status: "in_mediation" }, "disputed"],
    [{ status: "charged_back" }, "charged_back"],
  ])("maps %o to %s", async (fields, status) => {
    expect((await refetch(payment(fields))).status).toBe(status);
  });

  it("rejects an unknown status or a body that is not a payment", async () => {
    await expect(refetch(payment({ status: "something_new" }))).rejects.toThrow(ParseError);
    await expect(refetch({ message: "Payment not found", status: 404 })).rejects.toThrow(ParseError);
  });
});
