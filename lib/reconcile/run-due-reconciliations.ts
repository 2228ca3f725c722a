import { PROVIDER_NAMES, findDriver, type ProviderName } from "../providers/registry";
import type { AppConfig } from "../config/env";
import { DEFAULT_ACCOUNT } from "../canonical/gateway-account";
import { configAccounts, type AccountDirectory } from "../gateway-accounts/account-directory";
import { reconcileAccess, type ReconcileDeps } from "./run-reconciliation";

/** One gateway account reconciliation can run for. */
export type ReconcilableAccount = { provider: ProviderName; account: string };

/**
 * The accounts reconciliation can run for: an API URL, every credential its API needs (the
 * account's own, or the default's where its driver reads other accounts with them), and something
 * to call (a list API or a refetch). The default account only when its webhooks are accepted;
 * another only while enabled. Scheduled only with an interval (not 0).
 */
export function reconcilableAccounts(config: AppConfig, accounts: AccountDirectory, { scheduled = false } = {}): ReconcilableAccount[] {
  return PROVIDER_NAMES.flatMap((provider) => {
    const driver = findDriver(provider)!;
    const providerConfig = config.providers[provider];
    if (scheduled && providerConfig.reconcileIntervalMinutes === 0) return [];
    return accounts
      .list(provider)
      .filter((account) => (account.name === DEFAULT_ACCOUNT ? providerConfig.enabled : account.enabled))
      .filter((account) => !("unavailable" in reconcileAccess(accounts, config, driver, account)))
      .map((account) => ({ provider, account: account.name }));
  });
}

/** The gateways with at least one account reconciliation can run for (the console's choice of gateway). */
export function reconcilableProviders(config: AppConfig, accounts: AccountDirectory = configAccounts(config)): ProviderName[] {
  return [...new Set(reconcilableAccounts(config, accounts).map(({ provider }) => provider))];
}

/**
 * The accounts due a scheduled run now: reconcilable on schedule, and whose last scheduled run
 * started at least its gateway's interval ago (or never ran). The schedule (lib/jobs) enqueues one
 * job per account, so thousands of accounts are worked side by side, a few per gateway at a time.
 */
export async function dueReconciliations(deps: Pick<ReconcileDeps, "pool" | "config" | "accounts">): Promise<ReconcilableAccount[]> {
  const accounts = deps.accounts ?? configAccounts(deps.config);
  await accounts.ready();
  const reconcilable = reconcilableAccounts(deps.config, accounts, { scheduled: true });
  if (reconcilable.length === 0) return [];
  const { rows } = await deps.pool.query<{ provider: string; account: string; minutes: number }>(
    `SELECT r.provider, r.account, extract(epoch FROM now() - last.started_at)::float8 / 60 AS minutes
       FROM unnest($1::text[], $2::text[]) AS r(provider, account)
       JOIN LATERAL (SELECT started_at FROM reconcile_runs
                      WHERE trigger = 'schedule' AND provider = r.provider AND gateway_account = r.account
                      ORDER BY started_at DESC LIMIT 1) last ON true`,
    [reconcilable.map(({ provider }) => provider), reconcilable.map(({ account }) => account)],
  );
  const sinceLast = new Map(rows.map((row) => [`${row.provider}/${row.account}`, row.minutes]));
  return reconcilable.filter(({ provider, account }) => {
    const minutes = sinceLast.get(`${provider}/${account}`);
    return minutes === undefined || minutes >= deps.config.providers[provider].reconcileIntervalMinutes;
  });
}
