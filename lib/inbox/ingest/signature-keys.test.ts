import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config/env";
import { pagarmeDriver } from "@/lib/providers/pagarme";
import { stripeDriver } from "@/lib/providers/stripe";
import { generateSigningKey, startJwksServer, type JwksServer } from "@/lib/testing/jwks-server";
import type { ProviderDriver } from "@/lib/providers/types";
import { verificationNeeds } from "./signature-keys";

// The pipeline gives each driver what its declaration asks for, the same way for every driver.

const key = generateSigningKey("kid-1");
let server: JwksServer;
beforeAll(async () => {
  server = await startJwksServer([key]);
});
afterAll(() => server.close());

// A driver that signs with published keys, at a fixed address of its own.
const keyed: ProviderDriver = {
  ...stripeDriver,
  name: "keyed",
  verification: { publishedKeys: () => ({ url: server.url, ttlSeconds: 60 }) },
};

describe("verificationNeeds", () => {
  it("hands a driver that declares published keys a key source for them, fetched once per TTL", async () => {
    const needs = verificationNeeds(keyed, loadConfig({}).providers.stripe);
    expect(await needs.publicKeys?.("kid-1")).toMatchObject({ kid: "kid-1", kty: "RSA" });
    expect(await needs.publicKeys?.("kid-1")).toMatchObject({ kid: "kid-1" });
    expect(server.requests()).toBe(1);
    // Another request of the same process shares the key set.
    await verificationNeeds(keyed, loadConfig({}).providers.stripe).publicKeys?.("kid-1");
    expect(server.requests()).toBe(1);
  });

  it("hands every driver its own settings, and keys only to those that declared them", () => {
    const config = loadConfig({ PAGARME_SIGNATURES: "rs256,basic", PAGARME_JWKS_URL: server.url });
    const pagarme = verificationNeeds(pagarmeDriver, config.providers.pagarme);
    expect(pagarme.settings).toMatchObject({ signatures: ["rs256", "basic"], jwksUrl: server.url });
    expect(pagarme.publicKeys).toBeTypeOf("function");
    expect(verificationNeeds(stripeDriver, config.providers.stripe)).toEqual({ settings: undefined });
  });
});
