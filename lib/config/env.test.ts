import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./env";

describe("loadConfig", () => {
  it("gives working defaults for an empty environment", () => {
    const config = loadConfig({});
    expect(config.databaseUrl).toBeUndefined();
    expect(config.bodyLimitBytes).toBe(1024 * 1024);
    expect(config.providers.stripe).toMatchObject({ secrets: [], paymentSource: "gateway", refetchTypes: ["charge.dispute.*"] });
    expect(config.providers.asaas).toMatchObject({ paymentSource: "host", refetchTypes: ["*"] });
  });

  it("splits rotated secrets and treats empty strings as unset", () => {
    const config = loadConfig({ WEBHOOK_SECRET_STRIPE: "whsec_a, whsec_b", DATABASE_URL: "", REFETCH_STRIPE: "none" });
    expect(config.providers.stripe.secrets).toEqual(["whsec_a", "whsec_b"]);
    expect(config.providers.stripe.refetchTypes).toEqual([]);
    expect(config.databaseUrl).toBeUndefined();
  });

  it("names every bad variable in one message", () => {
    const attempt = () => loadConfig({ PORT: "eighty", DATABASE_URL: "mysql://x", STRIPE_API_URL: "not a url" });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/PORT/);
    expect(attempt).toThrow(/DATABASE_URL: must be a postgres/);
    expect(attempt).toThrow(/STRIPE_API_URL/);
  });

  it("parses the env example unchanged", async () => {
    const { readFile } = await import("node:fs/promises");
    const text = await readFile(new URL("../../.env.example", import.meta.url), "utf8");
    const env = Object.fromEntries(
      text
        .split("\n")
        .filter((line) => /^[A-Z_]+=/.test(line))
        .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
    );
    const config = loadConfig(env);
    expect(config.providers.stripe.secrets).toEqual(["whsec_dev_stripe_change_me"]);
    expect(config.sweeper.cron).toBe("* * * * *");
  });

  it("turns Pagar.me on with PAGARME_SIGNATURES, accepts only known schemes, and keeps legacy ones opt-in", () => {
    expect(loadConfig({}).providers.pagarme.enabled).toBe(false);
    expect(loadConfig({}).pagarme).toEqual({ signatures: ["rs256"], jwksUrl: "https://hubapi.pagar.me/.well-known/jwks.json", jwksTtlSeconds: 3600 });
    const legacy = loadConfig({ PAGARME_SIGNATURES: "rs256, hub-signature", WEBHOOK_SECRET_PAGARME: "ak_test" });
    expect(legacy.providers.pagarme.enabled).toBe(true);
    expect(legacy.pagarme.signatures).toEqual(["rs256", "hub-signature"]);
    expect(() => loadConfig({ PAGARME_SIGNATURES: "rs256,md5" })).toThrow(/PAGARME_SIGNATURES/);
    expect(loadConfig({ ZOOP_MARKETPLACE_ID: "mp_1", ZOOP_API_KEY: "zpk" }).providers.zoop.credentials).toEqual({ apiKey: "zpk", marketplaceId: "mp_1" });
  });
});
