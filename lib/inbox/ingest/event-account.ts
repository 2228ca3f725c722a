import type { AppConfig } from "../../config/env";
import { configAccounts, type AccountDirectory } from "../../gateway-accounts/account-directory";
import type { ProviderName } from "../../providers/registry";

/**
 * The account an event's body names by the gateway's own id (the driver's accountOf: a connected
 * account's `acct_…`, a seller's numeric id), as stored: the name of the account that
 * stands for that id (its gatewayAccountId, else its name), or the id itself when none does; null
 * when the body names none. Used where the URL named no account: the URL's account wins.
 */
export function accountNamedByBody(
  deps: { config: AppConfig; accounts?: AccountDirectory },
  provider: ProviderName,
  bodyAccountId: string | null,
): string | null {
  if (bodyAccountId === null) return null;
  return (deps.accounts ?? configAccounts(deps.config)).forGatewayId(provider, bodyAccountId)?.name ?? bodyAccountId;
}
