import { PROVIDER_NAMES, findDriver, type ProviderName } from "../providers/registry";
import type { AppConfig } from "../config/env";
import { DEFAULT_ACCOUNT } from "../canonical/gateway-account";
import { configAccounts, type AccountDirectory } from "../gateway-accounts/account-directory";
import { reconcileAccess, runReconciliation, type ReconcileDeps, type ReconcileResult } from "./run-reconciliation";

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
 * Scheduled every minute in the worker: runs each account whose last scheduled run started at least
 * its gateway's interval ago, one after the other (the runs' own lock keeps other workers off the
 * same account). With many accounts one pass may take longer than a minute: the job is exclusive,
 * so the next pass starts when this one ends and takes the accounts that are due by then.
 */
export async function runDueReconciliations(deps: ReconcileDeps): Promise<ReconcileResult[]> {
  const accounts = deps.accounts ?? configAccounts(deps.config);
  await accounts.ready();
  const due = reconcilableAccounts(deps.config, accounts, { scheduled: true });
  if (due.length === 0) return [];
  const { rows } = await deps.pool.query<{ provider: string; account: string; minutes: number }>(
    `SELECT r.provider, r.account, extract(epoch FROM now() - last.started_at)::float8 / 60 AS minutes
       FROM unnest($1::text[], $2::text[]) AS r(provider, account)
       JOIN LATERAL (SELECT started_at FROM reconcile_runs
                      WHERE trigger = 'schedule' AND provider = r.provider AND gateway_account = r.account
                      ORDER BY started_at DESC LIMIT 1) last ON true`,
    [due.map(({ provider }) => provider), due.map(({ account }) => account)],
  );
  const sinceLast = new Map(rows.map((row) => [`${row.provider}/${row.account}`, row.minutes]));
  const results: ReconcileResult[] = [];
  for (const { provider, account } of due) {
    const minutes = sinceLast.get(`${provider}/${account}`);
    if (minutes !== undefined && minutes < deps.config.providers[provider].reconcileIntervalMinutes) continue;
    results.push(await runReconciliation({ ...deps, accounts }, { provider, account, trigger: "schedule" }));
  }
  return results;
}
