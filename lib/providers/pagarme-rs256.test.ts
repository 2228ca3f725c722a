import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createJwksCache, KeysUnavailableError, type JwksCacheOptions } from "../http/jwks-cache";
import { asymmetricSignature, generateSigningKey, startJwksServer, type JwksServer } from "../testing/jwks-server";
import { pagarmeDriver } from "./pagarme";

// Pagar.me's current scheme as its own plugins verify it (pagarme/ecommerce-module-core
// WebhookValidatorService): X-Webhook-Asymmetric-Signature "alg=RS256; kid=...; signature=<base64url>",
// RS256 over the raw body, the key found by kid in a JWKS. Keys are made here; the JWKS is served
// from a local server, as Pagar.me serves its own.

const body = JSON.stringify({
  id: "hook_RyEKQO789TRpZjv5",
  account: { id: "acc_jZkdN857et650oNv", name: "Lojinha" },
  type: "charge.paid",
  created_at: "2026-11-30T20:23:47Z",
  data: { id: "ch_d22356Jf4WuGr8no", amount: 12356, currency: "BRL", status: "paid", paid_amount: 12356 },
});
const first = generateSigningKey("kid-2026-01");
const second = generateSigningKey("kid-2026-07");

let server: JwksServer;
let clock: number;
let requestsBefore: number;
/** Key set fetches during this test. */
const fetches = () => server.requests() - requestsBefore;

beforeAll(async () => {
  server = await startJwksServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.publish([first]);
  server.failWith(null);
  server.delay(0);
  server.padTo(0);
  clock = 1_000_000;
  requestsBefore = server.requests();
});

function keys(overrides: Partial<JwksCacheOptions> = {}) {
  return createJwksCache({
    url: server.url,
    ttlMs: 3_600_000,
    timeoutMs: 1_000,
    maxBytes: 16 * 1024,
    minRefetchIntervalMs: 30_000,
    now: () => clock,
    ...overrides,
  });
}

function verify(publicKeys: ReturnType<typeof keys>, signature: string | undefined, payload: string = body) {
  const headers: Record<string, string> = signature === undefined ? {} : { "x-webhook-asymmetric-signature": signature };
  return pagarmeDriver.verify(Buffer.from(payload), headers, {
    secrets: [],
    nowSeconds: 0,
    toleranceSeconds: 300,
    query: new URLSearchParams(),
    publicKeys,
    settings: pagarmeDriver.settings!.parse({ PAGARME_SIGNATURES: "rs256" }),
  });
}

describe("pagarme X-Webhook-Asymmetric-Signature", () => {
  it("accepts a body signed like Pagar.me signs it, and nothing tampered, unsigned or mis-declared", async () => {
    const publicKeys = keys();
    expect(await verify(publicKeys, asymmetricSignature(first, body))).toEqual({ ok: true });
    expect((await verify(publicKeys, asymmetricSignature(first, body), body.replace("12356", "12357"))).ok).toBe(false);
    expect((await verify(publicKeys, undefined)).ok).toBe(false);
    expect((await verify(publicKeys, asymmetricSignature(first, body).replace("alg=RS256", "alg=HS256"))).ok).toBe(false);
    expect((await verify(publicKeys, "alg=RS256; kid=kid-2026-01")).ok).toBe(false);
    // Signed by a key nobody published, under a published kid.
    expect((await verify(publicKeys, asymmetricSignature({ ...second, kid: first.kid }, body))).ok).toBe(false);
    expect(fetches()).toBe(1);
  });

  it("follows a key rotation: an unknown kid fetches the key set again, at most once per interval", async () => {
    const publicKeys = keys();
    expect((await verify(publicKeys, asymmetricSignature(first, body))).ok).toBe(true);
    server.publish([first, second]);
    clock += 31_000;
    expect(await verify(publicKeys, asymmetricSignature(second, body))).toEqual({ ok: true });
    expect(fetches()).toBe(2);
    // An attacker's made-up kids: never accepted, and no further fetch within the interval (they
    // can't be told from a rotation until the key set is asked again: unverifiable, answered 503).
    for (let index = 0; index < 20; index++) {
      await expect(verify(publicKeys, asymmetricSignature({ ...second, kid: `made-up-${index}` }, body))).rejects.toThrow(
        KeysUnavailableError,
      );
    }
    expect(fetches()).toBe(2);
    // Once the interval has passed, a key set fetched just now says the kid doesn't exist: refused (401).
    clock += 31_000;
    expect(await verify(publicKeys, asymmetricSignature({ ...second, kid: "made-up-again" }, body))).toEqual({
      ok: false,
      reason: "the signature's kid is not among the published RS256 signing keys",
    });
    expect(fetches()).toBe(3);
  });

  it("fetches the key set again after its TTL, and keeps retired keys out", async () => {
    const publicKeys = keys({ ttlMs: 60_000, minRefetchIntervalMs: 1_000 });
    expect((await verify(publicKeys, asymmetricSignature(first, body))).ok).toBe(true);
    server.publish([second]);
    clock += 61_000;
    expect((await verify(publicKeys, asymmetricSignature(first, body))).ok).toBe(false);
    expect((await verify(publicKeys, asymmetricSignature(second, body))).ok).toBe(true);
    expect(fetches()).toBe(2);
  });

  it("never accepts anything when the key set is down: it throws (answered 503), it does not say yes", async () => {
    server.failWith(503);
    await expect(verify(keys(), asymmetricSignature(first, body))).rejects.toThrow(KeysUnavailableError);
  });

  it("keeps verifying with the cached keys through an outage, and refuses unknown kids by throwing", async () => {
    const publicKeys = keys({ ttlMs: 60_000, minRefetchIntervalMs: 1_000 });
    expect((await verify(publicKeys, asymmetricSignature(first, body))).ok).toBe(true);
    server.failWith(500);
    clock += 61_000;
    expect((await verify(publicKeys, asymmetricSignature(first, body))).ok).toBe(true);
    await expect(verify(publicKeys, asymmetricSignature(second, body))).rejects.toThrow(KeysUnavailableError);
  });

  it("refuses an oversized key set", async () => {
    server.padTo(20 * 1024);
    await expect(verify(keys(), asymmetricSignature(first, body))).rejects.toThrow(/could not be read/);
  });

  it("gives up on a slow key set at its timeout", async () => {
    // The key set would arrive after 2 s and verify: a rejection means the 200 ms timeout fired.
    server.delay(2_000);
    await expect(verify(keys({ timeoutMs: 200 }), asymmetricSignature(first, body))).rejects.toThrow(KeysUnavailableError);
  });

  it("shares one fetch among concurrent deliveries", async () => {
    const publicKeys = keys();
    const results = await Promise.all(Array.from({ length: 10 }, () => verify(publicKeys, asymmetricSignature(first, body))));
    expect(results.every((result) => result.ok)).toBe(true);
    expect(fetches()).toBe(1);
  });
});
