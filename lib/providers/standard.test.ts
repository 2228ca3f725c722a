import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signStandard, standardDriver } from "./standard";
import { ParseError } from "./types";

// Vectors computed here from the spec's rules (https://www.standardwebhooks.com): signed content is
// "{webhook-id}.{webhook-timestamp}.{body}", the key is the base64-decoded part after "whsec_",
// the signature is "v1," + base64(HMAC-SHA256), and the header is a space-separated list.
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const NOW = 1_614_265_330;
const BODY =
  '{"type":"payment.succeeded","timestamp":"2021-02-25T15:02:10.123456Z","data":{"payment_id":"pay_1","amount":990,"currency":"EUR","customer":{"id":"c1","email":"bo@example.com"}}}';

function specSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.split("_")[1]!, "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

function verify(headers: Record<string, string>, secrets = [SECRET], body = BODY) {
  return standardDriver.verify(Buffer.from(body), headers, {
    secrets,
    nowSeconds: NOW,
    toleranceSeconds: 300,
    query: new URLSearchParams(),
  });
}

const headersFor = (signature: string, timestamp = NOW, id = ID) => ({
  "webhook-id": id,
  "webhook-timestamp": String(timestamp),
  "webhook-signature": signature,
});

describe("standard webhooks verify", () => {
  it("accepts the spec's signature and matches the driver's signer", () => {
    const signature = specSignature(SECRET, ID, NOW, BODY);
    expect(signStandard(SECRET, ID, NOW, BODY)).toBe(signature);
    expect(verify(headersFor(signature))).toEqual({ ok: true });
  });

  it("finds the v1 entry in a space-separated list with other versions", () => {
    const list = `v1a,c29tZWVkMjU1MTlzaWc= v1,${Buffer.alloc(32).toString("base64")} ${specSignature(SECRET, ID, NOW, BODY)}`;
    expect(verify(headersFor(list)).ok).toBe(true);
    expect(verify(headersFor("v1a,c29tZWVkMjU1MTlzaWc=")).ok).toBe(false);
  });

  it("accepts svix-* header names", () => {
    const signature = specSignature(SECRET, ID, NOW, BODY);
    expect(verify({ "svix-id": ID, "svix-timestamp": String(NOW), "svix-signature": signature }).ok).toBe(true);
  });

  it("rejects a wrong secret, a tampered body or id, bad timestamps and missing headers", () => {
    const good = specSignature(SECRET, ID, NOW, BODY);
    expect(verify(headersFor(specSignature("whsec_" + Buffer.from("other").toString("base64"), ID, NOW, BODY))).ok).toBe(false);
    expect(verify(headersFor(good), [SECRET], BODY.replace("990", "991")).ok).toBe(false);
    expect(verify(headersFor(good, NOW, "msg_other")).ok).toBe(false);
    expect(verify(headersFor(specSignature(SECRET, ID, NOW - 301, BODY), NOW - 301)).ok).toBe(false);
    expect(verify(headersFor(specSignature(SECRET, ID, NOW + 301, BODY), NOW + 301)).ok).toBe(false);
    expect(verify({ ...headersFor(good), "webhook-timestamp": "2021-02-25T15:02:10Z" }).ok).toBe(false);
    expect(verify({ "webhook-id": ID, "webhook-timestamp": String(NOW) }).ok).toBe(false);
  });

  it("accepts both secrets during a rotation", () => {
    const other = "whsec_" + Buffer.from("a-second-secret-32-bytes-long!!!").toString("base64");
    expect(verify(headersFor(specSignature(other, ID, NOW, BODY)), [SECRET, other]).ok).toBe(true);
    expect(verify(headersFor(specSignature(SECRET, ID, NOW, BODY)), [other, SECRET]).ok).toBe(true);
  });
});

describe("standard webhooks parse", () => {
  const context = { headers: headersFor("x"), query: new URLSearchParams(), timeZone: "UTC" };

  it("uses webhook-id as the key and keeps microsecond precision", () => {
    expect(standardDriver.parse(Buffer.from(BODY), context)).toMatchObject({
      eventId: ID,
      type: "payment.succeeded",
      resourceId: "pay_1",
      occurredAt: "2021-02-25T15:02:10.123456Z",
      precision: "microsecond",
      customerEmail: "bo@example.com",
      charge: { status: "paid", amount: 990, currency: "eur" },
    });
  });

  it("maps partial refunds and falls back to the header time", () => {
    const refund = JSON.stringify({ type: "payment.refunded", data: { id: "pay_2", amount: 1000, amount_refunded: 400 } });
    const parsed = standardDriver.parse(Buffer.from(refund), context);
    expect(parsed.charge?.status).toBe("partially_refunded");
    expect(parsed).toMatchObject({ occurredAt: "2021-02-25T15:02:10Z", precision: "second" });
  });

  it("throws ParseError for bodies without type or data", () => {
    expect(() => standardDriver.parse(Buffer.from('{"data":{}}'), context)).toThrow(ParseError);
    expect(() => standardDriver.parse(Buffer.from('{"type":"x","timestamp":"yesterday","data":{}}'), context)).toThrow(ParseError);
  });
});
