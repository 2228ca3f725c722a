import { accountVariableSuffix, DEFAULT_ACCOUNT } from "../canonical/gateway-account";
import type { AppConfig } from "../config/env";
import { credentialVariable, webhookSecretVariable } from "../config/provider-config";
import { DRIVERS, type ProviderName } from "../providers/registry";
import type { ApiCredential, ApiCredentials } from "../providers/types";

/**
 * Where an account is defined: the gateway's own variables (the default account), a name in
 * `<PROVIDER>_ACCOUNTS` with its suffixed variables, or a row of `gateway_accounts`.
 */
export type AccountSource = "default" | "environment" | "database";

/** One account of a gateway, as reception, refetch and reconciliation use it. */
export type GatewayAccount = {
  provider: ProviderName;
  name: string;
  source: AccountSource;
  /** A disabled account's URL refuses deliveries (retryable) and it is not reconciled on schedule. */
  enabled: boolean;
  /** Its webhook secrets (any verifies: several during a rotation). */
  secrets: string[];
  /** Its own API credentials; none set: it reads the API with the default account's. */
  credentials: ApiCredentials;
  /** The gateway's own id of the account, as its events name it (its name when not set); null for the default. */
  gatewayAccountId: string | null;
  /** Why its sealed secrets can't be read (no key opens them): it neither verifies nor authenticates. */
  unreadable?: string;
};

/** The default account: the gateway's own variables (WEBHOOK_SECRET_<PROVIDER>, <PROVIDER>_API_KEY, ...). */
export function defaultAccount(config: AppConfig, provider: ProviderName): GatewayAccount {
  const own = config.providers[provider];
  return {
    provider,
    name: DEFAULT_ACCOUNT,
    source: "default",
    enabled: true,
    secrets: own.secrets,
    credentials: own.credentials,
    gatewayAccountId: null,
  };
}

/** The accounts `<PROVIDER>_ACCOUNTS` names, for every gateway. */
export function environmentAccounts(config: AppConfig): GatewayAccount[] {
  return DRIVERS.flatMap((driver) =>
    config.providers[driver.name].accounts.map((account): GatewayAccount => ({
      provider: driver.name,
      name: account.name,
      source: "environment",
      enabled: true,
      secrets: account.secrets,
      credentials: account.credentials,
      gatewayAccountId: account.gatewayAccountId ?? account.name,
    })),
  );
}

/** Does the account have API credentials of its own (any its driver's API uses)? */
export function hasOwnCredentials(account: GatewayAccount, uses: readonly ApiCredential[]): boolean {
  return uses.some((credential) => account.credentials[credential] !== undefined);
}

/**
 * Where an operator sets one of an account's settings, for messages: `variable` for the default
 * account, that variable with the account's suffix for an environment account; for a database
 * account, the account itself (console, CLI or host API), naming `what`.
 */
function accountSetting(account: Pick<GatewayAccount, "provider" | "name" | "source">, variable: string, what: string): string {
  if (account.source === "default") return variable;
  if (account.source === "environment") return `${variable}_${accountVariableSuffix(account.name)}`;
  return `the ${what} of ${account.provider} account "${account.name}"`;
}

/** Where an operator sets one of an account's API credentials, for messages (accountSetting). */
export function credentialSetting(account: Pick<GatewayAccount, "provider" | "name" | "source">, credential: ApiCredential): string {
  return accountSetting(account, credentialVariable(account.provider, credential), credential);
}

/** Where an operator sets an account's webhook secrets, for messages (accountSetting). */
export function secretSetting(account: Pick<GatewayAccount, "provider" | "name" | "source">): string {
  return accountSetting(account, webhookSecretVariable(account.provider), "webhook secrets");
}
