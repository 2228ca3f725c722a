import { describe, expect, it } from "vitest";
import { loadConfig } from "../config/env";
import { defaultAccount, environmentAccounts, secretSetting } from "./gateway-account";

describe("secretSetting: where an account's webhook secret is set, for messages", () => {
  it("names the variable the configuration reads, for the default account and for one named in <PROVIDER>_ACCOUNTS", () => {
    const config = loadConfig({
      ASAAS_ACCOUNTS: "loja-b.sul",
      WEBHOOK_SECRET_ASAAS: "own-token",
      WEBHOOK_SECRET_ASAAS_LOJA_B_SUL: "loja-token",
    });
    const account = environmentAccounts(config).find((candidate) => candidate.name === "loja-b.sul")!;
    expect(secretSetting(defaultAccount(config, "asaas"))).toBe("WEBHOOK_SECRET_ASAAS");
    expect(secretSetting(account)).toBe("WEBHOOK_SECRET_ASAAS_LOJA_B_SUL");
    // The variable named is the one that holds the secret, not a near miss.
    const reread = loadConfig({ ASAAS_ACCOUNTS: "loja-b.sul", [secretSetting(account)]: "another-token" });
    expect(environmentAccounts(reread).find((candidate) => candidate.name === "loja-b.sul")!.secrets).toEqual(["another-token"]);
  });

  it("names a database account itself: no variable holds its secrets", () => {
    expect(secretSetting({ provider: "stripe", name: "acct-7", source: "database" })).toBe(
      'the webhook secrets of stripe account "acct-7"',
    );
  });
});
