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

  it("takes one destination from DESTINATION_URL and a whsec_ DESTINATION_SECRET, both or neither", () => {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    expect(loadConfig({}).destinations.configured).toBeUndefined();
    expect(loadConfig({ DESTINATION_URL: "http://shop.internal/hooks", DESTINATION_SECRET: secret }).destinations).toMatchObject({
      configured: { url: "http://shop.internal/hooks", secret },
      timeoutMs: 10_000,
      breakerFailures: 10,
    });
    expect(loadConfig({}).destinations.retryDelaysSeconds.reduce((sum, delay) => sum + delay, 0) / 86_400).toBeCloseTo(2.7, 1);
    expect(() => loadConfig({ DESTINATION_URL: "http://shop.internal/hooks" })).toThrow(
      /DESTINATION_SECRET: set DESTINATION_URL and DESTINATION_SECRET together/,
    );
    expect(() => loadConfig({ DESTINATION_URL: "http://shop.internal/hooks", DESTINATION_SECRET: "hunter2" })).toThrow(
      /DESTINATION_SECRET: must be a whsec_ key/,
    );
    expect(() => loadConfig({ DESTINATION_URL: "ftp://shop.internal/", DESTINATION_SECRET: secret })).toThrow(/DESTINATION_URL/);
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
    expect(loadConfig({}).providers.pagarme.settings).toEqual({
      signatures: ["rs256"],
      jwksUrl: "https://hubapi.pagar.me/.well-known/jwks.json",
      jwksTtlSeconds: 3600,
    });
    const legacy = loadConfig({ PAGARME_SIGNATURES: "rs256, hub-signature", WEBHOOK_SECRET_PAGARME: "ak_test" });
    expect(legacy.providers.pagarme.enabled).toBe(true);
    expect(legacy.providers.pagarme.settings).toMatchObject({ signatures: ["rs256", "hub-signature"] });
    expect(() => loadConfig({ PAGARME_SIGNATURES: "rs256,md5" })).toThrow(/PAGARME_SIGNATURES/);
    expect(loadConfig({ ZOOP_MARKETPLACE_ID: "mp_1", ZOOP_API_KEY: "zpk" }).providers.zoop.credentials).toEqual({
      apiKey: "zpk",
      marketplaceId: "mp_1",
    });
  });

  it("refuses, in production only, any variable holding one of .env.example's development secrets", async () => {
    const { readFile } = await import("node:fs/promises");
    const text = await readFile(new URL("../../.env.example", import.meta.url), "utf8");
    // Every secret the example file ships is on the refused list.
    const secrets = text
      .split("\n")
      .map((line) => /^(AUTH_SECRET|ACCOUNT_SECRETS_KEY|PAYMENTS_API_TOKENS|WEBHOOK_SECRET_\w+|\w+_TOKENS?)=(.+)$/.exec(line))
      .filter((match) => match !== null)
      .map((match) => [match[1]!, match[2]!] as const);
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    for (const [name, value] of secrets) {
      expect(() => loadConfig({ NODE_ENV: "production", [name]: value }), name).toThrow(new RegExp(`${name}: holds a development value`));
      expect(() => loadConfig({ NODE_ENV: "development", [name]: value })).not.toThrow();
    }
    // Also as one of several (a rotation list) and under any name.
    expect(() => loadConfig({ NODE_ENV: "production", PAYMENTS_API_TOKENS: "real-token,dev-payments-token" })).toThrow(
      /PAYMENTS_API_TOKENS/,
    );
    expect(() => loadConfig({ NODE_ENV: "production", WEBHOOK_SECRET_STANDARD: "whsec_dev_stripe_change_me" })).toThrow(
      /WEBHOOK_SECRET_STANDARD/,
    );
    expect(loadConfig({ NODE_ENV: "production", AUTH_SECRET: "a-real-secret-0123456789abcdef-0123456789" }).nodeEnv).toBe("production");
  });

  it("refuses weak secrets in production: short tokens, and a whsec_ that decodes to a short or empty key", () => {
    const strong = "0123456789abcdef";
    const cases: [string, string, RegExp][] = [
      ["PAYMENTS_API_TOKENS", `${strong},x`, /PAYMENTS_API_TOKENS: each secret must be at least 16/],
      ["HEALTH_TOKENS", "a", /HEALTH_TOKENS/],
      ["WEBHOOK_SECRET_ASAAS", "abc", /WEBHOOK_SECRET_ASAAS/],
      ["WEBHOOK_SECRET_STRIPE", "whsec_", /WEBHOOK_SECRET_STRIPE/],
      ["WEBHOOK_SECRET_STANDARD", "whsec_", /WEBHOOK_SECRET_STANDARD: each whsec_ secret must decode to at least 16 bytes/],
      ["WEBHOOK_SECRET_STANDARD", "whsec_c2hvcnQ=", /WEBHOOK_SECRET_STANDARD/],
      // 16 base64 characters are 12 bytes of key.
      ["DESTINATION_SECRET", "whsec_MTIzNDU2Nzg5MDEy", /DESTINATION_SECRET: each whsec_ secret must decode to at least 16 bytes/],
      // A scope is no part of the secret.
      ["PAYMENTS_API_TOKENS", "stripe:0123456789", /PAYMENTS_API_TOKENS: each secret must be at least 16/],
    ];
    // The destination's secret comes with its URL.
    const destination = { DESTINATION_URL: "https://host.example/payments" };
    for (const [name, value, problem] of cases) {
      expect(() => loadConfig({ NODE_ENV: "production", ...destination, [name]: value }), `${name}=${value}`).toThrow(problem);
      expect(() =>
        loadConfig({ NODE_ENV: "development", ...destination, DESTINATION_SECRET: "whsec_MTIzNDU2Nzg5MDEy", [name]: value }),
      ).not.toThrow();
    }
    const accepted = {
      PAYMENTS_API_TOKENS: `${strong},stripe+asaas:${strong}x`,
      ...destination,
      DESTINATION_SECRET: "whsec_MTIzNDU2Nzg5MDEyMzQ1Ng==",
      WEBHOOK_SECRET_STANDARD: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      WEBHOOK_SECRET_STRIPE: "whsec_0123456789abcdef",
    };
    expect(loadConfig({ NODE_ENV: "production", ...accepted }).nodeEnv).toBe("production");
  });

  it("reads a token's gateway scope, and refuses a scope naming no gateway", () => {
    expect(loadConfig({ PAYMENTS_API_TOKENS: "plain-token, stripe+zoop:scoped:token" }).paymentsApiTokens).toEqual([
      { token: "plain-token", providers: null },
      { token: "scoped:token", providers: ["stripe", "zoop"] },
    ]);
    expect(() => loadConfig({ PAYMENTS_API_TOKENS: "strpe:a-token" })).toThrow(
      /PAYMENTS_API_TOKENS: a token's scope names strpe, not gateways/,
    );
  });

  it("validates TRUSTED_PROXIES", () => {
    expect(loadConfig({ TRUSTED_PROXIES: "10.0.0.0/8, 127.0.0.1" }).trustedProxies).toEqual(["10.0.0.0/8", "127.0.0.1"]);
    expect(() => loadConfig({ TRUSTED_PROXIES: "10.0.0.0/40" })).toThrow(/TRUSTED_PROXIES/);
  });

  it("turns single sign-on on with the issuer, client id and secret together, and reads its role map in order", () => {
    const sso = { OIDC_ISSUER: "https://id.example.com/realms/staff", OIDC_CLIENT_ID: "inbox", OIDC_CLIENT_SECRET: "s3cret-from-the-idp" };
    expect(loadConfig({}).oidc).toBeNull();
    expect(loadConfig(sso).oidc).toEqual({
      issuer: "https://id.example.com/realms/staff",
      clientId: "inbox",
      clientSecret: "s3cret-from-the-idp",
      name: "SSO",
      scopes: "openid email profile",
      roleClaim: null,
      roleMap: [],
      defaultRole: null,
      createUsers: false,
    });
    const mapped = loadConfig({
      ...sso,
      OIDC_NAME: "Okta",
      OIDC_ROLE_CLAIM: "realm_access.roles",
      OIDC_ROLE_MAP: "admins:admin, finance-team:finance,urn:example:groups:support:support",
      OIDC_DEFAULT_ROLE: "viewer",
      OIDC_CREATE_USERS: "on",
    }).oidc;
    expect(mapped).toMatchObject({
      name: "Okta",
      roleClaim: "realm_access.roles",
      roleMap: [
        { value: "admins", role: "admin" },
        { value: "finance-team", role: "finance" },
        { value: "urn:example:groups:support", role: "support" },
      ],
      defaultRole: "viewer",
      createUsers: true,
    });

    const { OIDC_CLIENT_SECRET: _secret, ...withoutSecret } = sso;
    expect(() => loadConfig(withoutSecret)).toThrow(
      /OIDC_CLIENT_SECRET: single sign-on needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET/,
    );
    expect(() => loadConfig({ OIDC_DEFAULT_ROLE: "viewer" })).toThrow(/missing: OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET/);
    expect(() => loadConfig({ OIDC_CREATE_USERS: "on" })).toThrow(/single sign-on needs OIDC_ISSUER/);
    expect(() => loadConfig({ ...sso, OIDC_ROLE_MAP: "admins:root" })).toThrow(/OIDC_ROLE_MAP: "admins:root" is not value:role/);
    expect(() => loadConfig({ ...sso, OIDC_ROLE_MAP: "admins:admin" })).toThrow(
      /OIDC_ROLE_CLAIM: set OIDC_ROLE_CLAIM and OIDC_ROLE_MAP together/,
    );
    expect(() => loadConfig({ ...sso, OIDC_ROLE_CLAIM: "groups" })).toThrow(
      /OIDC_ROLE_MAP: set OIDC_ROLE_CLAIM and OIDC_ROLE_MAP together/,
    );
    expect(() => loadConfig({ ...sso, OIDC_DEFAULT_ROLE: "owner" })).toThrow(/OIDC_DEFAULT_ROLE/);
    expect(() => loadConfig({ ...sso, OIDC_SCOPES: "email profile" })).toThrow(/OIDC_SCOPES: must include openid/);
    expect(() => loadConfig({ ...sso, OIDC_ISSUER: "https://id.example.com/?tenant=1" })).toThrow(/OIDC_ISSUER: must be the issuer's URL/);
  });

  it("refuses, in production, single sign-on over plain http or with a short client secret", () => {
    const sso = { OIDC_ISSUER: "https://id.example.com", OIDC_CLIENT_ID: "inbox", OIDC_CLIENT_SECRET: "0123456789abcdef" };
    expect(loadConfig({ NODE_ENV: "production", ...sso }).oidc?.issuer).toBe("https://id.example.com");
    expect(() => loadConfig({ NODE_ENV: "production", ...sso, OIDC_ISSUER: "http://id.example.com" })).toThrow(
      /OIDC_ISSUER: must be an https URL in production/,
    );
    // A comma is part of the secret, not a list.
    expect(() => loadConfig({ NODE_ENV: "production", ...sso, OIDC_CLIENT_SECRET: "0123456789,abcdef" })).not.toThrow();
    expect(() => loadConfig({ NODE_ENV: "production", ...sso, OIDC_CLIENT_SECRET: "short" })).toThrow(
      /OIDC_CLIENT_SECRET: each secret must be at least 16 characters/,
    );
    expect(
      loadConfig({ NODE_ENV: "development", ...sso, OIDC_ISSUER: "http://127.0.0.1:8080", OIDC_CLIENT_SECRET: "short" }).oidc,
    ).not.toBeNull();
  });
});
