import { describe, expect, it } from "vitest";
import { z } from "zod";
import { bearerAuth } from "../providers/api-auth";
import { DRIVERS, enableHint, type ProviderName } from "../providers/registry";
import { ParseError, type ProviderDriver } from "../providers/types";
import { configuredProviders } from "./configured-providers";
import { ConfigError, configVariables, loadConfig } from "./env";
import { providerVariables } from "./provider-config";

// A gateway the registry doesn't have: everything below reads it from its driver alone.
const fakeDriver: ProviderDriver<"fakepay"> = {
  name: "fakepay",
  label: "FakePay",
  defaults: { refetch: "charge.*", paymentSource: "host", timeZone: "America/Bogota", apiUrl: "https://api.fakepay.test/v2" },
  keptHeaders: [],
  personalData: [],
  secretHeaders: [],
  apiAuth: bearerAuth,
  verify: () => ({ ok: false, reason: "fake" }),
  parse: () => {
    throw new ParseError("fake");
  },
};
// The fake's name is not a ProviderName; the configuration keys it by name all the same.
const drivers = [...DRIVERS, fakeDriver as unknown as ProviderDriver<ProviderName>];
const fakeConfig = (env: Record<string, string>) => loadConfig(env, drivers).providers[fakeDriver.name as ProviderName];

describe("a gateway is its driver plus one registry line", () => {
  it("is configured from its driver's defaults, and its variables override them", () => {
    expect(fakeConfig({})).toEqual({
      secrets: [],
      apiUrl: "https://api.fakepay.test/v2",
      credentials: {},
      paymentSource: "host",
      refetchTypes: ["charge.*"],
      timeZone: "America/Bogota",
      reconcileIntervalMinutes: 60,
      piiAtRest: "keep",
      enabled: false,
      enabledWithoutSecret: false,
      accounts: [],
    });
    expect(
      fakeConfig({
        WEBHOOK_SECRET_FAKEPAY: "s1,s2",
        FAKEPAY_API_URL: "http://127.0.0.1:9/",
        FAKEPAY_API_KEY: "k",
        REFETCH_FAKEPAY: "none",
        PAYMENT_SOURCE_FAKEPAY: "gateway",
      }),
    ).toMatchObject({
      secrets: ["s1", "s2"],
      apiUrl: "http://127.0.0.1:9/",
      credentials: { apiKey: "k" },
      refetchTypes: [],
      paymentSource: "gateway",
      enabled: true,
    });
    expect(() => loadConfig({ FAKEPAY_TIMEZONE: "Mars/Olympus" }, drivers)).toThrow(ConfigError);
    expect(() => loadConfig({ FAKEPAY_TIMEZONE: "Mars/Olympus" }, drivers)).toThrow(/FAKEPAY_TIMEZONE: must be an IANA time zone/);
  });

  it("appears in the console's provider filter once its secret is set", () => {
    expect(configuredProviders(loadConfig({}, drivers))).not.toContain("fakepay");
    expect(configuredProviders(loadConfig({ WEBHOOK_SECRET_FAKEPAY: "s1" }, drivers))).toContain("fakepay");
  });

  it("is documented by the per-gateway variables docs/configuration.md already has", () => {
    const variables = configVariables(drivers);
    const fakes = variables.filter(({ variable }) => variable.includes("FAKEPAY"));
    expect(fakes.map(({ variable }) => variable).sort()).toEqual(
      [
        "FAKEPAY_API_KEY",
        "FAKEPAY_API_URL",
        "FAKEPAY_TIMEZONE",
        "PAYMENT_SOURCE_FAKEPAY",
        "REFETCH_FAKEPAY",
        "WEBHOOK_SECRET_FAKEPAY",
        "RECONCILE_INTERVAL_MINUTES_FAKEPAY",
        "PII_AT_REST_FAKEPAY",
        "FAKEPAY_ACCOUNTS",
        "WEBHOOK_SECRET_FAKEPAY_<NAME>",
        "FAKEPAY_API_KEY_<NAME>",
        "FAKEPAY_GATEWAY_ACCOUNT_ID_<NAME>",
      ].sort(),
    );
    const documented = new Set(configVariables().map(({ documentedAs }) => documentedAs));
    for (const { documentedAs } of variables) expect(documented, documentedAs).toContain(documentedAs);
  });
});

describe("a gateway's named accounts", () => {
  it("are the names <PROVIDER>_ACCOUNTS lists, each read from the variables suffixed by its name", () => {
    const config = fakeConfig({
      FAKEPAY_ACCOUNTS: "loja-a, acct_1AbC",
      WEBHOOK_SECRET_FAKEPAY_LOJA_A: "new-secret,old-secret",
      FAKEPAY_API_KEY_LOJA_A: "key-a",
      FAKEPAY_GATEWAY_ACCOUNT_ID_ACCT_1ABC: "acct_1AbC",
      // Not a credential this gateway's API uses: not read.
      FAKEPAY_MARKETPLACE_ID_LOJA_A: "mp",
    });
    expect(config.accounts).toEqual([
      { name: "loja-a", secrets: ["new-secret", "old-secret"], credentials: { apiKey: "key-a" }, gatewayAccountId: null },
      { name: "acct_1AbC", secrets: [], credentials: {}, gatewayAccountId: "acct_1AbC" },
    ]);
    // The default account's variables are untouched by them.
    expect(config).toMatchObject({ secrets: [], credentials: {}, enabled: false });
  });

  it("refuses a name that is not one, the default's, or two names sharing their variables", () => {
    expect(() => loadConfig({ FAKEPAY_ACCOUNTS: "loja a" }, drivers)).toThrow(/FAKEPAY_ACCOUNTS: "loja a" is not an account name/);
    expect(() => loadConfig({ FAKEPAY_ACCOUNTS: "default" }, drivers)).toThrow(/FAKEPAY_ACCOUNTS: "default" is the gateway's own/);
    expect(() => loadConfig({ FAKEPAY_ACCOUNTS: "loja-a,LOJA_A" }, drivers)).toThrow(/share the variables \*_LOJA_A/);
  });

  it("have their secrets measured in production like the default account's", () => {
    const env = { NODE_ENV: "production", STANDARD_ACCOUNTS: "shop", WEBHOOK_SECRET_STANDARD_SHOP: "whsec_c2hvcnQ=" };
    expect(() => loadConfig(env)).toThrow(/WEBHOOK_SECRET_STANDARD_SHOP: each whsec_ secret must decode to at least 16 bytes/);
  });
});

// A gateway with variables of its own: it declares them, the configuration reads and checks them.
const keyedSettings = z
  .object({ KEYPAY_KEYS_URL: z.url().optional(), KEYPAY_MODES: z.enum(["strict", "lenient"]).default("strict") })
  .transform((raw) => ({ keysUrl: raw.KEYPAY_KEYS_URL, mode: raw.KEYPAY_MODES }));
const keyedDriver: ProviderDriver<"keypay", z.output<typeof keyedSettings>> = {
  ...fakeDriver,
  name: "keypay",
  label: "KeyPay",
  settings: keyedSettings,
  enabledBy: ["KEYPAY_KEYS_URL"],
};
const withKeyed = [...DRIVERS, keyedDriver as unknown as ProviderDriver<ProviderName>];
const keyedConfig = (env: Record<string, string>) => loadConfig(env, withKeyed).providers[keyedDriver.name as ProviderName];

describe("a driver's own variables", () => {
  it("are read under their full names into the settings its driver is handed", () => {
    expect(keyedConfig({}).settings).toEqual({ keysUrl: undefined, mode: "strict" });
    expect(keyedConfig({}).enabled).toBe(false);
    const set = keyedConfig({ KEYPAY_KEYS_URL: "https://keys.keypay.test/jwks.json", KEYPAY_MODES: "lenient" });
    expect(set.settings).toEqual({ keysUrl: "https://keys.keypay.test/jwks.json", mode: "lenient" });
    expect(set.enabled).toBe(true);
  });

  it("are validated with the rest, the message naming the variable", () => {
    const both = { KEYPAY_MODES: "loose", KEYPAY_TIMEZONE: "Mars/Olympus" };
    expect(() => loadConfig(both, withKeyed)).toThrow(/KEYPAY_MODES: /);
    expect(() => loadConfig(both, withKeyed)).toThrow(/KEYPAY_TIMEZONE: must be an IANA time zone/);
    expect(() => loadConfig({ KEYPAY_KEYS_URL: "not a url" }, withKeyed)).toThrow(/KEYPAY_KEYS_URL: /);
  });

  it("are listed among the variables the configuration reads, each under its own name", () => {
    const own = configVariables(withKeyed).filter(({ variable }) => variable.startsWith("KEYPAY_"));
    expect(own).toContainEqual({ variable: "KEYPAY_KEYS_URL", documentedAs: "KEYPAY_KEYS_URL" });
    expect(own).toContainEqual({ variable: "KEYPAY_MODES", documentedAs: "KEYPAY_MODES" });
  });
});

describe("configured", () => {
  it("means webhooks are accepted, so an RS256-only Pagar.me is in the provider filter", () => {
    const rs256Only = loadConfig({ PAGARME_SIGNATURES: "rs256" });
    expect(rs256Only.providers.pagarme.enabled).toBe(true);
    expect(configuredProviders(rs256Only)).toEqual(["pagarme"]);
    expect(configuredProviders(loadConfig({ WEBHOOK_SECRET_STRIPE: "whsec_x", WEBHOOK_SECRET_ZOOP: "z" }))).toEqual(["stripe", "zoop"]);
    expect(configuredProviders(loadConfig({}))).toEqual([]);
  });
});

describe("a driver's enable hint", () => {
  it.each(DRIVERS.map((driver) => [driver.name, driver] as const))(
    "%s: names only variables its configuration reads, and the first it names turns it on",
    (_name, driver) => {
      const hint = enableHint(driver);
      const named = [...hint.matchAll(/\b([A-Z][A-Z0-9]*_[A-Z0-9_]+)(?:=(\S+))?/g)];
      const reads = providerVariables(driver).map(({ variable }) => variable);
      expect(named.length, hint).toBeGreaterThan(0);
      for (const [, variable] of named) expect(reads, hint).toContain(variable);
      const [, first, value] = named[0]!;
      expect(loadConfig({ [first!]: value ?? "a-secret-value" }).providers[driver.name].enabled, hint).toBe(true);
    },
  );
});

describe("the drivers' defaults", () => {
  it("are the ones each gateway had before they moved into its driver", () => {
    const { providers } = loadConfig({});
    const defaults = Object.fromEntries(
      Object.entries(providers).map(([name, provider]) => [
        name,
        [provider.refetchTypes.join(","), provider.paymentSource, provider.timeZone, provider.apiUrl],
      ]),
    );
    expect(defaults).toEqual({
      stripe: ["charge.dispute.*", "gateway", "UTC", "https://api.stripe.com"],
      standard: ["", "gateway", "UTC", undefined],
      pagarme: ["*", "host", "UTC", "https://api.pagar.me/core/v5"],
      asaas: ["*", "host", "America/Sao_Paulo", "https://api.asaas.com/v3"],
      mercadopago: ["*", "host", "UTC", "https://api.mercadopago.com"],
      zoop: ["*", "host", "UTC", "https://api.zoop.ws/v1"],
    });
  });
});
