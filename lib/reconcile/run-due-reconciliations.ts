import { PROVIDER_NAMES, type ProviderName } from "../providers/registry";
import type { AppConfig } from "../config/env";
import { missingCredentials } from "../http/gateway-clients";
import { findDriver } from "../providers/registry";
import { runReconciliation, type ReconcileDeps, type ReconcileResult } from "./run-reconciliation";

/**
 * The gateways reconciliation can run for: webhooks accepted, an API URL, every credential its API
 * needs, and something to call (a list API or a refetch). Scheduled only with an interval (not 0).
 */
export function reconcilableProviders(config: AppConfig, { scheduled = false } = {}): ProviderName[] {
  return PROVIDER_NAMES.filter((provider) => {
    const driver = findDriver(provider);
    const providerConfig = config.providers[provider];
    if (!driver || !providerConfig.enabled || !providerConfig.apiUrl) return false;
    if (!driver.lister && !driver.refetch) return false;
    if (scheduled && providerConfig.reconcileIntervalMinutes === 0) return false;
    return missingCredentials(driver, providerConfig).length === 0;
  });
}

/**
 * Scheduled every minute in the worker: runs each gateway whose last scheduled run started at least
 * its interval ago, one after the other (the runs' own lock keeps other workers off the same gateway).
 */
export async function runDueReconciliations(deps: ReconcileDeps): Promise<ReconcileResult[]> {
  const providers = reconcilableProviders(deps.config, { scheduled: true });
  if (providers.length === 0) return [];
  const { rows } = await deps.pool.query<{ provider: string; minutes: number }>(
    `SELECT provider, extract(epoch FROM now() - max(started_at))::float8 / 60 AS minutes
       FROM reconcile_runs WHERE trigger = 'schedule' AND provider = ANY($1::text[]) GROUP BY provider`,
    [providers],
  );
  const sinceLast = new Map(rows.map((row) => [row.provider, row.minutes]));
  const results: ReconcileResult[] = [];
  for (const provider of providers) {
    const minutes = sinceLast.get(provider);
    if (minutes !== undefined && minutes < deps.config.providers[provider].reconcileIntervalMinutes) continue;
    results.push(await runReconciliation(deps, { provider, trigger: "schedule" }));
  }
  return results;
}
