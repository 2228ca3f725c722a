import type { PgBoss } from "pg-boss";
import type { AppConfig } from "../config/env";
import type { ProviderName } from "../providers/registry";
import type { Pool, Queryable } from "../db/pool";
import type { ObservedCharge } from "../canonical/observed-charge";
import { missingCredentials, notSet, type GatewayClients } from "../http/gateway-clients";
import { storeEvent } from "../inbox/ingest/store-event";
import { normalizeEvent } from "../inbox/ingest/normalize-event";
import { findDriver } from "../providers/registry";
import type { GatewayFetch, GatewayLister, ListedItem, ProviderDriver } from "../providers/types";
import { nextWindow, saveCursor, type ReconcileWindow } from "./reconcile-cursor";
import { emptyCounts, recordProgress, startRun, type RunCounts, type RunTrigger } from "./reconcile-runs";
import { drifted, driftKey, localPayments, recordDriftEvent, type LocalPayment } from "./record-drift-event";
import { findStuckPayments } from "./find-stuck-payments";
import { recordAudit } from "../audit/record-audit";

export type ReconcileDeps = { pool: Pool; boss: PgBoss; config: AppConfig; gateways: GatewayClients; now?: () => Date };

export type ReconcileRequest = {
  provider: ProviderName;
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
  | { outcome: "busy"; provider: ProviderName }
  | { outcome: "unavailable"; provider: ProviderName; reason: string }
  | (RunCounts & {
      outcome: "finished" | "interrupted";
      provider: ProviderName;
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

// Session-level, on a connection held for the run: a second run of the same gateway (another worker,
// the CLI, the console) finds it taken and backs off instead of listing the same pages twice.
const TRY_LOCK = `SELECT pg_try_advisory_lock(hashtextextended('reconcile:' || $1, 0)) AS locked`;
const UNLOCK = `SELECT pg_advisory_unlock(hashtextextended('reconcile:' || $1, 0))`;

/**
 * One reconciliation run of one gateway: lists its window page by page through the gateway's
 * authenticated client (rate limiter, circuit breaker), ingests listed events we never received
 * through the inbox's own insert (same key, source "reconcile"), turns listed charges whose state
 * differs from ours into derived events, then refetches payments stuck in a non-final state. Each
 * page moves the gateway's cursor, so a run stopped by a 429, a 5xx or an open circuit is resumed
 * where it stopped by the next one. Never two at once per gateway.
 */
export async function runReconciliation(deps: ReconcileDeps, request: ReconcileRequest): Promise<ReconcileResult> {
  const { provider } = request;
  const driver = findDriver(provider);
  const client = deps.gateways(provider);
  if (!driver || !client)
    return { outcome: "unavailable", provider, reason: `${provider} has no API URL (set ${provider.toUpperCase()}_API_URL)` };
  const missing = missingCredentials(driver, deps.config.providers[provider]);
  if (missing.length > 0) return { outcome: "unavailable", provider, reason: `reconciliation needs ${notSet(missing)}` };
  if (!driver.lister && !driver.refetch)
    return { outcome: "unavailable", provider, reason: `${provider} has neither a list API nor a refetch` };

  const lockClient = request.dryRun ? null : await deps.pool.connect();
  try {
    if (lockClient && !(await lockClient.query<{ locked: boolean }>(TRY_LOCK, [provider])).rows[0]!.locked)
      return { outcome: "busy", provider };
    try {
      return await reconcile(deps, driver, client.fetchJson, request);
    } finally {
      if (lockClient) await lockClient.query(UNLOCK, [provider]);
    }
  } finally {
    lockClient?.release();
  }
}

type Run = {
  deps: ReconcileDeps;
  driver: ProviderDriver<ProviderName>;
  fetchJson: GatewayFetch;
  request: ReconcileRequest;
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
  deps: ReconcileDeps,
  driver: ProviderDriver<ProviderName>,
  fetchJson: Run["fetchJson"],
  request: ReconcileRequest,
): Promise<ReconcileResult> {
  const now = deps.now?.() ?? new Date();
  const explicit = request.since !== undefined;
  const window: ReconcileWindow = explicit
    ? { since: request.since!, until: request.until ?? now, pageToken: null }
    : await nextWindow(deps.pool, deps.config, request.provider, now, driver.lister?.retentionDays);
  const dryRun = request.dryRun === true;
  const runId = dryRun
    ? null
    : await startRun(deps.pool, {
        provider: request.provider,
        trigger: request.trigger,
        actor: request.actor ?? null,
        since: window.since,
        until: window.until,
      });
  const run: Run = { deps, driver, fetchJson, request, runId, counts: emptyCounts(), findings: [], lastError: null };

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
      details: { provider: request.provider, runId, since: window.since, until: window.until, outcome, ...run.counts },
    });
  }
  return {
    outcome,
    provider: request.provider,
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
  let pageToken = window.pageToken;
  // The window is pinned before the first page: a run stopped anywhere in it resumes this window.
  if (moveCursor) await saveCursor(pool, run.request.provider, window, false);
  for (let page = 0; page < config.reconcile.maxPages; page++) {
    const observedAt = new Date().toISOString();
    let listed;
    try {
      listed = await lister.listPage(
        run.fetchJson,
        { since: window.since, until: window.until, pageToken, pageSize: config.reconcile.pageSize },
        { credentials: providerConfig.credentials, settings: providerConfig.settings, timeZone: providerConfig.timeZone },
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
    if (moveCursor) await saveCursor(pool, run.request.provider, { ...window, pageToken }, done);
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
      await repairIfDrifted(run, observed, item.updatedAt, locals.get(item.resourceId), "drift");
    }
  }
}

async function repairIfDrifted(
  run: Run,
  observed: ObservedCharge,
  updatedAt: string | null,
  local: LocalPayment | undefined,
  kind: "drift" | "stuck",
): Promise<void> {
  const createsPayments = run.deps.config.providers[run.request.provider].paymentSource === "gateway";
  if (!drifted(local, observed.snapshot, createsPayments)) return;
  const key = driftKey(observed, updatedAt, local);
  if (run.runId !== null && !(await recordDriftEvent(run.deps, run.request.provider, observed, key))) return;
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

/** Payments in a non-final state with no news for a while: refetched, and repaired where they drifted. */
async function refetchStuck(run: Run): Promise<void> {
  const { deps, driver } = run;
  const providerConfig = deps.config.providers[driver.name];
  const stuck = await findStuckPayments(deps.pool, driver.name, deps.config.reconcile.stuckMinutes, deps.config.reconcile.stuckLimit);
  for (const { lastPayload, ...payment } of stuck) {
    const observedAt = new Date().toISOString();
    const account = driver.accountOf?.(lastPayload) ?? undefined;
    let snapshot;
    try {
      snapshot = await driver.refetch!(payment.chargeId, run.fetchJson, {
        credentials: providerConfig.credentials,
        settings: providerConfig.settings,
        timeZone: providerConfig.timeZone,
        ...(account ? { account } : {}),
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
    await repairIfDrifted(run, observed, null, payment, "stuck");
  }
}
