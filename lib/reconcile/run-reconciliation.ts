import type { PgBoss } from "pg-boss";
import type { AppConfig } from "../config/env";
import type { ProviderName } from "../providers/registry";
import type { Pool, Queryable } from "../db/pool";
import type { ObservedCharge } from "../canonical/observed-charge";
import type { GatewayClients } from "../http/gateway-clients";
import { DEFAULT_ACCOUNT } from "../canonical/gateway-account";
import { accountAccess, notSet, type AccountAccess } from "../gateway-accounts/account-access";
import { configAccounts, type AccountDirectory } from "../gateway-accounts/account-directory";
import { hasOwnCredentials, type GatewayAccount } from "../gateway-accounts/gateway-account";
import { accountNamedByBody } from "../inbox/ingest/event-account";
import { storeEvent } from "../inbox/ingest/store-event";
import { normalizeEvent } from "../inbox/ingest/normalize-event";
import { findDriver } from "../providers/registry";
import type { GatewayFetch, GatewayLister, ListedItem, ProviderDriver } from "../providers/types";
import { nextWindow, saveCursor, type ReconcileWindow } from "./reconcile-cursor";
import { emptyCounts, recordProgress, startRun, type RunCounts, type RunTrigger } from "./reconcile-runs";
import { drifted, driftKey, localPayments, recordDriftEvent, type LocalPayment } from "./record-drift-event";
import { findStuckPayments } from "./find-stuck-payments";
import { recordAudit } from "../audit/record-audit";

export type ReconcileDeps = {
  pool: Pool;
  boss: PgBoss;
  config: AppConfig;
  gateways: GatewayClients;
  /** The gateway accounts (unset: the configuration's alone). */
  accounts?: AccountDirectory;
  now?: () => Date;
};

export type ReconcileRequest = {
  provider: ProviderName;
  /** The account listed, with its own credentials and cursor; unset: the default account. */
  account?: string;
  /** An explicit window (CLI, console); unset, the gateway's cursor decides and is moved on. */
  since?: Date;
  until?: Date;
  /** Lists and compares, writes nothing (no run, no cursor, no event): what a run would do. */
  dryRun?: boolean;
  trigger: RunTrigger;
  actor?: string | null;
};

/** One thing a run found (the first few are kept for a preview). */
export type Finding = {
  kind: "missing_event" | "drift" | "stuck";
  resourceId: string | null;
  eventId?: string;
  eventType?: string;
  ours?: string | null;
  theirs?: string;
};

export type ReconcileResult =
  | { outcome: "busy"; provider: ProviderName; account: string }
  | { outcome: "unavailable"; provider: ProviderName; account: string; reason: string }
  | (RunCounts & {
      outcome: "finished" | "interrupted";
      provider: ProviderName;
      account: string;
      runId: number | null;
      dryRun: boolean;
      since: string;
      until: string;
      /** The window was listed to its end (false: stopped by an error or the page bound; the cursor resumes it). */
      complete: boolean;
      lastError: string | null;
      findings: Finding[];
    });

const MAX_FINDINGS = 200;

function describe(error: unknown): string {
  return (error instanceof Error ? `${error.name === "Error" ? "" : `${error.name}: `}${error.message}` : String(error)).slice(0, 1000);
}

// Session-level, on a connection held for the run: a second run of the same account (another worker,
// the CLI, the console) finds it taken and backs off instead of listing the same pages twice.
const TRY_LOCK = `SELECT pg_try_advisory_lock(hashtextextended('reconcile:' || $1, 0)) AS locked`;
const UNLOCK = `SELECT pg_advisory_unlock(hashtextextended('reconcile:' || $1, 0))`;
// The default account's key is the provider alone, as it was before accounts.
const lockKey = (provider: string, account: string) => (account === DEFAULT_ACCOUNT ? provider : `${provider}/${account}`);

/**
 * How an account is listed, or why it can't be: its own credentials, or (where its driver reads
 * other accounts with the default's: readsOtherAccounts) the default account's naming it.
 */
export function reconcileAccess(
  accounts: AccountDirectory,
  config: AppConfig,
  driver: ProviderDriver<ProviderName>,
  account: GatewayAccount,
): AccountAccess | { unavailable: string } {
  const { provider } = account;
  if (!config.providers[provider].apiUrl) return { unavailable: `${provider} has no API URL (set ${provider.toUpperCase()}_API_URL)` };
  if (!driver.lister && !driver.refetch) return { unavailable: `${provider} has neither a list API nor a refetch` };
  if (account.name !== DEFAULT_ACCOUNT && !hasOwnCredentials(account, driver.apiAuth?.uses ?? []) && !driver.readsOtherAccounts)
    return { unavailable: `${provider} account "${account.name}" has no API credentials of its own` };
  const access = accountAccess(accounts, driver, account.name);
  if ("unavailable" in access) return access;
  if (access.missing.length > 0) return { unavailable: `reconciliation needs ${notSet(access.missing)}` };
  return access;
}

/**
 * One reconciliation run of one gateway account: lists its window page by page through the gateway's
 * client authenticated as the account (rate limiter, circuit breaker), ingests listed events we never
 * received through the inbox's own insert (same key, source "reconcile"), turns listed charges whose
 * state differs from ours into derived events, then refetches the account's payments stuck in a
 * non-final state. Each page moves the account's cursor, so a run stopped by a 429, a 5xx or an open
 * circuit is resumed where it stopped by the next one. Never two at once per account.
 */
export async function runReconciliation(deps: ReconcileDeps, request: ReconcileRequest): Promise<ReconcileResult> {
  const { provider } = request;
  const accountName = request.account ?? DEFAULT_ACCOUNT;
  const driver = findDriver(provider);
  const accounts = deps.accounts ?? configAccounts(deps.config);
  await accounts.ready();
  const account = accounts.find(provider, accountName);
  if (!driver || !account)
    return { outcome: "unavailable", provider, account: accountName, reason: `no ${provider} account "${accountName}"` };
  const access = reconcileAccess(accounts, deps.config, driver, account);
  if ("unavailable" in access) return { outcome: "unavailable", provider, account: accountName, reason: access.unavailable };

  const lockClient = request.dryRun ? null : await deps.pool.connect();
  const key = lockKey(provider, accountName);
  try {
    if (lockClient && !(await lockClient.query<{ locked: boolean }>(TRY_LOCK, [key])).rows[0]!.locked)
      return { outcome: "busy", provider, account: accountName };
    try {
      return await reconcile({ ...deps, accounts }, driver, access, { ...request, account: accountName });
    } finally {
      if (lockClient) await lockClient.query(UNLOCK, [key]);
    }
  } finally {
    lockClient?.release();
  }
}

type Run = {
  deps: ReconcileDeps & { accounts: AccountDirectory };
  driver: ProviderDriver<ProviderName>;
  fetchJson: GatewayFetch;
  /** How the account is read: its credentials, and the account named to the API when they are the default's. */
  access: AccountAccess;
  request: ReconcileRequest & { account: string };
  runId: number | null;
  counts: RunCounts;
  findings: Finding[];
  lastError: string | null;
};

function found(run: Run, finding: Finding): void {
  if (run.findings.length < MAX_FINDINGS) run.findings.push(finding);
}

function recordError(run: Run, error: unknown): void {
  run.counts.errors++;
  run.lastError = describe(error);
}

async function reconcile(
  deps: Run["deps"],
  driver: ProviderDriver<ProviderName>,
  access: AccountAccess,
  request: Run["request"],
): Promise<ReconcileResult> {
  const now = deps.now?.() ?? new Date();
  const explicit = request.since !== undefined;
  const window: ReconcileWindow = explicit
    ? { since: request.since!, until: request.until ?? now, pageToken: null }
    : await nextWindow(deps.pool, deps.config, { provider: request.provider, account: request.account }, now, driver.lister?.retentionDays);
  const dryRun = request.dryRun === true;
  const runId = dryRun
    ? null
    : await startRun(deps.pool, {
        provider: request.provider,
        account: request.account,
        trigger: request.trigger,
        actor: request.actor ?? null,
        since: window.since,
        until: window.until,
      });
  const fetchJson = deps.gateways(request.provider, access.credentials)!.fetchJson;
  const run: Run = { deps, driver, fetchJson, access, request, runId, counts: emptyCounts(), findings: [], lastError: null };

  let complete = true;
  try {
    if (driver.lister) complete = await listWindow(run, driver.lister, window, !explicit && !dryRun);
    // Stuck payments only once the window is through: what it listed may already have repaired them.
    if (complete && driver.refetch) await refetchStuck(run);
  } catch (error) {
    // Our own failure (the database), not the gateway's: the run is marked failed, not left running.
    recordError(run, error);
    if (runId !== null) await recordProgress(deps.pool, runId, run.counts, run.lastError, "failed").catch(() => undefined);
    throw error;
  }
  const outcome = complete && run.counts.errors === 0 ? "finished" : "interrupted";
  if (runId !== null) await recordProgress(deps.pool, runId, run.counts, run.lastError, outcome);
  // A person's run (CLI, console) is audited; scheduled ones are in reconcile_runs alone.
  if (runId !== null && request.trigger !== "schedule") {
    await recordAudit(deps.pool, {
      actor: request.actor ?? request.trigger,
      action: "reconcile",
      details: {
        provider: request.provider,
        account: request.account,
        runId,
        since: window.since,
        until: window.until,
        outcome,
        ...run.counts,
      },
    });
  }
  return {
    outcome,
    provider: request.provider,
    account: request.account,
    runId,
    dryRun,
    since: window.since.toISOString(),
    until: window.until.toISOString(),
    complete,
    lastError: run.lastError,
    findings: run.findings,
    ...run.counts,
  };
}

/** Lists the window from its page token; true when its last page was reached. */
async function listWindow(run: Run, lister: GatewayLister, window: ReconcileWindow, moveCursor: boolean): Promise<boolean> {
  const { config, pool } = run.deps;
  const providerConfig = config.providers[run.request.provider];
  const cursor = { provider: run.request.provider, account: run.request.account };
  let pageToken = window.pageToken;
  // The window is pinned before the first page: a run stopped anywhere in it resumes this window.
  if (moveCursor) await saveCursor(pool, cursor, window, false);
  for (let page = 0; page < config.reconcile.maxPages; page++) {
    const observedAt = new Date().toISOString();
    let listed;
    try {
      listed = await lister.listPage(
        run.fetchJson,
        { since: window.since, until: window.until, pageToken, pageSize: config.reconcile.pageSize },
        {
          credentials: run.access.credentials,
          settings: providerConfig.settings,
          timeZone: providerConfig.timeZone,
          ...(run.access.readAs ? { account: run.access.readAs } : {}),
        },
      );
    } catch (error) {
      // The cursor still points at this page: the next run starts here.
      recordError(run, error);
      return false;
    }
    run.counts.pages++;
    run.counts.listed += listed.items.length;
    await handleItems(run, listed.items, observedAt);
    pageToken = listed.nextPageToken;
    const done = pageToken === null;
    if (moveCursor) await saveCursor(pool, cursor, { ...window, pageToken }, done);
    if (run.runId !== null) await recordProgress(pool, run.runId, run.counts, run.lastError);
    if (done) return true;
  }
  run.lastError ??= `stopped after ${config.reconcile.maxPages} pages (RECONCILE_MAX_PAGES); the next run continues`;
  return false;
}

async function handleItems(run: Run, items: readonly ListedItem[], observedAt: string): Promise<void> {
  const events = items.flatMap((item) => (item.kind === "event" ? [item] : []));
  const resources = items.flatMap((item) => (item.kind === "resource" ? [item] : []));
  for (const item of items)
    if (item.kind === "unreadable") recordError(run, new Error(`listed ${item.resourceId ?? "object"}: ${item.error}`));
  if (events.length > 0) await ingestMissing(run, events);
  if (resources.length > 0) {
    const locals = await localPayments(
      run.deps.pool,
      run.request.provider,
      resources.map((item) => item.resourceId),
    );
    for (const item of resources) {
      const observed: ObservedCharge = {
        kind: "observed_charge",
        resourceId: item.resourceId,
        via: "list",
        observedAt,
        gatewayStatus: item.gatewayStatus,
        snapshot: item.snapshot,
        resource: item.body,
      };
      const local = locals.get(item.resourceId);
      await repairIfDrifted(run, observed, item.updatedAt, local, "drift", run.driver.accountOf?.(local?.lastPayload) ?? null);
    }
  }
}

async function repairIfDrifted(
  run: Run,
  observed: ObservedCharge,
  updatedAt: string | null,
  local: LocalPayment | undefined,
  kind: "drift" | "stuck",
  /** The gateway's id of the account its payment's events name (accountOf), if any. */
  bodyAccountId: string | null,
): Promise<void> {
  const createsPayments = run.deps.config.providers[run.request.provider].paymentSource === "gateway";
  if (!drifted(local, observed.snapshot, createsPayments)) return;
  const key = driftKey(observed, updatedAt, local);
  if (
    run.runId !== null &&
    !(await recordDriftEvent(run.deps, { provider: run.request.provider, account: storedAccount(run, bodyAccountId) }, observed, key))
  )
    return;
  if (run.runId === null && (await keyExists(run.deps.pool, run.request.provider, [key])).size > 0) return;
  run.counts.repaired++;
  found(run, {
    kind,
    resourceId: observed.resourceId,
    eventId: key,
    eventType: `reconcile.${observed.snapshot.status}`,
    ours: local?.status ?? null,
    theirs: observed.snapshot.status,
  });
}

async function keyExists(db: Queryable, provider: string, eventIds: readonly string[]): Promise<Set<string>> {
  const { rows } = await db.query<{ event_id: string }>(
    `SELECT event_id FROM webhook_inbox WHERE provider = $1 AND event_id = ANY($2::text[])`,
    [provider, eventIds],
  );
  return new Set(rows.map((row) => row.event_id));
}

/** Listed events the inbox doesn't have, stored through its own insert as the gateway would have delivered them. */
async function ingestMissing(run: Run, events: readonly Extract<ListedItem, { kind: "event" }>[]): Promise<void> {
  const { deps, driver } = run;
  const known = await keyExists(
    deps.pool,
    driver.name,
    events.map((event) => event.eventId),
  );
  const providerConfig = deps.config.providers[driver.name];
  // Oldest first (a list API may give newest first): each event of a payment then applies in turn.
  const missing = events
    .filter((event) => !known.has(event.eventId))
    .map((event) => {
      // The bytes are the API's rendering of the event (a delivery's own bytes were never received).
      const rawBody = Buffer.from(JSON.stringify(event.body));
      const context = {
        headers: {},
        query: new URLSearchParams(),
        timeZone: providerConfig.timeZone,
        settings: providerConfig.settings,
      };
      return { rawBody, normalized: normalizeEvent(driver, rawBody, context) };
    })
    .sort((a, b) => (a.normalized.columns.occurredAt ?? "").localeCompare(b.normalized.columns.occurredAt ?? ""));
  for (const { rawBody, normalized } of missing) {
    if (run.runId !== null) {
      const inboxId = await storeEvent(deps, {
        provider: driver.name,
        account: storedAccount(run, normalized.columns.account),
        columns: normalized.columns,
        error: normalized.ok ? null : normalized.error,
        rawBody,
        // Listed by the API, never delivered: no request headers to keep.
        headers: {},
        queryString: null,
        source: "reconcile",
      });
      // Null: a delivery of the same event won the race since we looked. Not missed after all.
      if (inboxId === null) continue;
    }
    run.counts.missingIngested++;
    found(run, {
      kind: "missing_event",
      resourceId: normalized.columns.resourceId,
      eventId: normalized.columns.eventId,
      eventType: normalized.columns.type,
    });
  }
}

/**
 * The account what a run stores belongs to: a named account's run, its own; the default's, the
 * account the body names (a seller's, a connected account's), else the default, as for a delivery to
 * the default URL: its payment took its account from those same bodies.
 */
function storedAccount(run: Run, bodyAccountId: string | null): string {
  if (run.request.account !== DEFAULT_ACCOUNT) return run.request.account;
  return accountNamedByBody(run.deps, run.request.provider, bodyAccountId) ?? DEFAULT_ACCOUNT;
}

/**
 * The account's payments in a non-final state with no news for a while: refetched, and repaired
 * where they drifted. The default account's run takes every payment of an account no one registered
 * (an unregistered connected account's, read naming the account its latest event names).
 */
async function refetchStuck(run: Run): Promise<void> {
  const { deps, driver } = run;
  const providerConfig = deps.config.providers[driver.name];
  const scope =
    run.request.account === DEFAULT_ACCOUNT
      ? { notOf: deps.accounts.list(driver.name).flatMap((account) => (account.name === DEFAULT_ACCOUNT ? [] : [account.name])) }
      : { of: run.request.account };
  const stuck = await findStuckPayments(
    deps.pool,
    driver.name,
    scope,
    deps.config.reconcile.stuckMinutes,
    deps.config.reconcile.stuckLimit,
  );
  for (const { account: paymentAccount, ...payment } of stuck) {
    const observedAt = new Date().toISOString();
    const bodyAccountId = driver.accountOf?.(payment.lastPayload) ?? null;
    const access = accountAccess(deps.accounts, driver, paymentAccount, bodyAccountId);
    let snapshot;
    try {
      if ("unavailable" in access) throw new Error(access.unavailable);
      const fetchJson =
        access.credentials === run.access.credentials ? run.fetchJson : deps.gateways(driver.name, access.credentials)!.fetchJson;
      snapshot = await driver.refetch!(payment.chargeId, fetchJson, {
        credentials: access.credentials,
        settings: providerConfig.settings,
        timeZone: providerConfig.timeZone,
        ...(access.readAs ? { account: access.readAs } : {}),
      });
    } catch (error) {
      recordError(run, error);
      // An open circuit or a gateway answering 429/5xx: the rest would fail the same way.
      if (error instanceof Error && (error.name === "CircuitOpenError" || error.name === "GatewayHttpError")) return;
      continue;
    }
    run.counts.stuckRefetched++;
    const observed: ObservedCharge = {
      kind: "observed_charge",
      resourceId: payment.chargeId,
      via: "refetch",
      observedAt,
      gatewayStatus: snapshot.status,
      snapshot,
    };
    await repairIfDrifted(run, observed, null, payment, "stuck", bodyAccountId);
  }
}
