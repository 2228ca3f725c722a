import { z } from "zod";
import type { AppConfig } from "../config/env";
import type { Queryable } from "../db/pool";
import { environmentAccountViews, listGatewayAccountViews, type GatewayAccountView } from "../gateway-accounts/manage-gateway-accounts";
import { findDriver, PROVIDER_NAMES, type ProviderName } from "../providers/registry";

const PAGE_SIZE = 50;

const paramsSchema = z.object({
  provider: z.enum(PROVIDER_NAMES).optional().catch(undefined),
  search: z.string().trim().max(100).optional().catch(undefined),
  page: z.coerce.number().int().min(1).catch(1).default(1),
});

export type GatewayAccountsView = {
  /** One page of the database's accounts, by gateway and name. */
  accounts: GatewayAccountView[];
  total: number;
  page: number;
  pageSize: number;
  /** The accounts the environment names (`<PROVIDER>_ACCOUNTS`): shown, changed only there. */
  environment: GatewayAccountView[];
  inputs: { provider: string; search: string };
  /** Each gateway and the API credentials its API takes (what the add form asks for). */
  gateways: { name: ProviderName; label: string; credentials: string[] }[];
  /** Whether ACCOUNT_SECRETS_KEY is set (without it, accounts can't be added). */
  canSeal: boolean;
};

/** The gateway accounts page: the environment's accounts and a page of the database's, filtered. */
export async function getGatewayAccountsView(
  db: Queryable,
  config: AppConfig,
  params: Record<string, string>,
): Promise<GatewayAccountsView> {
  const { provider, search, page } = paramsSchema.parse(params);
  const list = await listGatewayAccountViews(db, { provider, search, page, pageSize: PAGE_SIZE });
  return {
    ...list,
    page,
    pageSize: PAGE_SIZE,
    environment: environmentAccountViews(config, provider),
    inputs: { provider: provider ?? "", search: search ?? "" },
    gateways: PROVIDER_NAMES.map((name) => {
      const driver = findDriver(name)!;
      return { name, label: driver.label, credentials: [...(driver.apiAuth?.uses ?? [])] };
    }),
    canSeal: config.gatewayAccounts.secretKeys.length > 0,
  };
}
