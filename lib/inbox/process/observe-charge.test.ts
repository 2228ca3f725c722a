import { describe, expect, it } from "vitest";
import { loadConfig } from "../../config/env";
import { missingCredentialWarnings } from "./observe-charge";

describe("missingCredentialWarnings", () => {
  it("names the missing variable once per enabled gateway that will refetch", () => {
    const warnings = missingCredentialWarnings(
      loadConfig({
        WEBHOOK_SECRET_ASAAS: "token",
        WEBHOOK_SECRET_ZOOP: "user:pass",
        ZOOP_API_KEY: "zpk",
        WEBHOOK_SECRET_MERCADOPAGO: "mp",
        REFETCH_MERCADOPAGO: "none",
        WEBHOOK_SECRET_STRIPE: "whsec",
        STRIPE_API_KEY: "sk",
      }),
    );
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/^refetch for asaas needs ASAAS_API_KEY, which is not set/);
    // Mercado Pago's bodies are notices only: REFETCH_MERCADOPAGO=none can't spare the key.
    expect(warnings[1]).toMatch(/^refetch for mercadopago needs MERCADOPAGO_API_KEY/);
    expect(warnings[2]).toMatch(/^refetch for zoop needs ZOOP_MARKETPLACE_ID, which is not set/);
  });

  it("says nothing for gateways that are off or never refetch", () => {
    expect(missingCredentialWarnings(loadConfig({}))).toEqual([]);
    expect(missingCredentialWarnings(loadConfig({ WEBHOOK_SECRET_ASAAS: "token", REFETCH_ASAAS: "none" }))).toEqual([]);
  });
});
