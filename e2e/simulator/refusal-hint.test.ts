import { describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config/env";
import { defaultAccount, environmentAccounts, type GatewayAccount } from "@/lib/gateway-accounts/gateway-account";
import { fingerprint } from "@/lib/gateway-accounts/sealed-account";
import { refusalHint } from "./refusal-hint";
import type { Refusal } from "./send-webhooks";

const badSignature: Refusal = {
  provider: "asaas",
  status: 401,
  code: "INVALID_SIGNATURE",
  error: "invalid signature",
  answers: 3,
  gaveUp: 1,
};
const config = loadConfig({
  WEBHOOK_SECRET_ASAAS: "own-token-of-twenty-chars",
  ASAAS_ACCOUNTS: "loja-b",
  WEBHOOK_SECRET_ASAAS_LOJA_B: "loja-b-token",
});
const run = (account: GatewayAccount) => ({ url: "http://localhost:3000", gatewayUrl: null, signedAs: () => account });

describe("the simulator's hint for a refused signature names the secret of the account it signed as", () => {
  it("the gateway's own variable for the default account", () => {
    expect(refusalHint(badSignature, run(defaultAccount(config, "asaas")))).toBe(
      "is the app's WEBHOOK_SECRET_ASAAS set to the simulator's (25 characters; it reads its environment, .env, then .env.example)?",
    );
  });

  it("the account's suffixed variable for an account named in the environment (--account)", () => {
    const hint = refusalHint(badSignature, run(environmentAccounts(config).find((account) => account.name === "loja-b")!));
    expect(hint).toBe(
      "is the app's WEBHOOK_SECRET_ASAAS_LOJA_B set to the simulator's (12 characters; it reads its environment, .env, then .env.example)?",
    );
  });

  it("the database account itself, by its secret's fingerprint, never the gateway's variable", () => {
    const account: GatewayAccount = {
      provider: "asaas",
      name: "loja-c",
      source: "database",
      enabled: true,
      secrets: ["loja-c-token"],
      credentials: {},
      gatewayAccountId: "loja-c",
    };
    const hint = refusalHint(badSignature, run(account))!;
    expect(hint).toContain(
      `the webhook secrets of asaas account "loja-c" as its DATABASE_URL holds them (fingerprint ${fingerprint("loja-c-token")})`,
    );
    expect(hint).not.toContain("WEBHOOK_SECRET_");
  });

  it("says how to add an account the app doesn't have", () => {
    const unknown: Refusal = {
      ...badSignature,
      status: 404,
      code: "UNKNOWN_ACCOUNT",
      error: 'unknown account "loja-b" of provider "asaas"',
    };
    expect(refusalHint(unknown, run(defaultAccount(config, "asaas")))).toMatch(/^add the account to the app \(ASAAS_ACCOUNTS/);
  });
});
