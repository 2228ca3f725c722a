import { describe, expect, it } from "vitest";
import { bearerAuth } from "../providers/api-auth";
import { DRIVERS, type ProviderName } from "../providers/registry";
import { ParseError, type ProviderDriver } from "../providers/types";
import { configuredProviders } from "./configured-providers";
import { ConfigError, configVariables, loadConfig } from "./env";

// A gateway the registry doesn't have: everything below reads it from its driver alone.
const fakeDriver: ProviderDriver<"fakepay"> = {
  name: "fakepay",
  defaults: { refetch: "charge.*", paymentSource: "host", timeZone: "America/Bogota", apiUrl: "https://api.fakepay.test/v2" },
  keptHeaders: [],
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
      enabled: false,
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
      ].sort(),
    );
    const documented = new Set(configVariables().map(({ documentedAs }) => documentedAs));
    for (const { documentedAs } of variables) expect(documented, documentedAs).toContain(documentedAs);
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
