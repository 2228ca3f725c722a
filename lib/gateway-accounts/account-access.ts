import { DEFAULT_ACCOUNT } from "../canonical/gateway-account";
import type { ProviderName } from "../providers/registry";
import type { ApiCredentials, ProviderDriver } from "../providers/types";
import type { AccountDirectory } from "./account-directory";
import { credentialSetting, hasOwnCredentials, type GatewayAccount } from "./gateway-account";

// Which credentials read an account's resources from its gateway's API. An account with credentials
// of its own (a subaccount's key, a seller's token) reads with them. One without reads with the
// default account's, naming itself where its driver can say so (a platform's key plus the connected
// account's header: the driver's readsOtherAccounts). An account nobody registered but its gateway names in the
// body (an unregistered connected account or seller) reads like one without credentials; an account
// that came from its URL and is gone (removed) can't be read at all: its events wait for it.

/** How one account's resources are read. */
export type AccountAccess = {
  /** The account whose credentials are sent. */
  via: GatewayAccount;
  credentials: ApiCredentials;
  /** The account the resource lives in when the credentials are another's (the driver's RefetchContext.account). */
  readAs?: string;
  /** Where each credential its API needs and that is not set would be set (empty: nothing missing). */
  missing: string[];
};

/** Why an account's resources can't be read at all (it is not configured, or its secrets don't open). */
export type NoAccess = { unavailable: string };

/**
 * How to read a resource of the account an event (or a payment) belongs to: `account` is its
 * `gateway_account`, `bodyAccountId` what its body names (the driver's accountOf), if anything.
 */
export function accountAccess(
  accounts: AccountDirectory,
  driver: Pick<ProviderDriver<ProviderName>, "name" | "apiAuth" | "accountOf">,
  account: string,
  bodyAccountId: string | null = null,
): AccountAccess | NoAccess {
  const fallback = accounts.find(driver.name, DEFAULT_ACCOUNT)!;
  // An event stored under the gateway's own id, before an account stood for it, is that account's now.
  const named =
    account === DEFAULT_ACCOUNT
      ? fallback
      : (accounts.find(driver.name, account) ??
        accounts.forGatewayId(driver.name, account) ??
        (bodyAccountId === null ? undefined : accounts.forGatewayId(driver.name, bodyAccountId)));
  if (named?.unreadable) return { unavailable: `${driver.name} account "${account}": ${named.unreadable}` };
  if (!named && !driver.accountOf) {
    return { unavailable: `${driver.name} account "${account}" is not configured (removed?): its events wait until it is added again` };
  }
  const uses = driver.apiAuth?.uses ?? [];
  const own = named !== undefined && named !== fallback && hasOwnCredentials(named, uses);
  const via = own ? named : fallback;
  const missing = (driver.apiAuth?.needs ?? [])
    .filter((credential) => !via.credentials[credential])
    .map((credential) => credentialSetting(via, credential));
  if (own) return { via, credentials: via.credentials, missing };
  // Read with the default's credentials: name the account where it is not the default's own.
  const readAs = bodyAccountId ?? (named && named !== fallback ? named.gatewayAccountId : account === DEFAULT_ACCOUNT ? null : account);
  return { via, credentials: via.credentials, missing, ...(readAs ? { readAs } : {}) };
}

/** "<P>_API_KEY, which is not set" / "A and B, which are not set". */
export function notSet(settings: string[]): string {
  return `${settings.join(" and ")}, which ${settings.length > 1 ? "are" : "is"} not set`;
}
