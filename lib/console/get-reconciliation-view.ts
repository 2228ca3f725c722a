import type { AppConfig } from "../config/env";
import type { AccountDirectory } from "../gateway-accounts/account-directory";
import type { Queryable } from "../db/pool";
import type { ProviderName } from "../providers/registry";
import { reconcilableProviders } from "../reconcile/run-due-reconciliations";
import { listRuns, type ReconcileRunRow } from "../reconcile/reconcile-runs";

export type ReconciliationView = { providers: ProviderName[]; runs: ReconcileRunRow[] };

/** The reconciliation page: the gateways with an account that can be reconciled, and the latest runs. */
export async function getReconciliationView(db: Queryable, config: AppConfig, accounts: AccountDirectory): Promise<ReconciliationView> {
  await accounts.ready();
  return { providers: reconcilableProviders(config, accounts), runs: await listRuns(db, 50) };
}
