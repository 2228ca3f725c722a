import type { PgBoss } from "pg-boss";
import type { AppConfig } from "../config/env";
import { preparedStatement, withTransaction, type Pool, type Queryable } from "../db/pool";
import { CircuitOpenError } from "../http/circuit-breaker";
import { applyChargeUpdate, type ApplyResult } from "../payments/apply-charge-update";
import { isoToMicros, type EventTime, type IgnoredReason } from "../payments/state-machine";
import { dispatchEvents, type DispatchableEvent } from "../queue/boss";
import { findDriver } from "../providers/registry";
import type { ChargeSnapshot } from "../canonical/charge-event";
import type { ProviderName } from "../config/provider-names";
import type { NormalizedEvent, ProviderDriver } from "../providers/types";
import { CREDENTIAL_RECHECK_SECONDS, matchesEventType, missingCredentials, notSet, type GatewayClients } from "./gateway-clients";
import { normalizeEvent, UNPARSEABLE_TYPE, type NormalizedColumns } from "./normalize-event";
import { retryDelaySeconds } from "./retry-schedule";
import { recordSettled } from "../observability/metrics";

export type ProcessDeps = {
  pool: Pool;
  boss: PgBoss;
  config: AppConfig;
  gateways: GatewayClients;
  /** Recorded on each attempt (host and pid), so an operator can tell which worker ran it. */
  workerId: string;
};

export type ProcessOutcome = "processed" | "ignored" | "failed" | "retry" | "deferred" | "skipped";

type StartedAttempt = DispatchableEvent & {
  eventType: string;
  rawBody: Buffer;
  headers: Record<string, string>;
  queryString: string | null;
  attempts: number;
  attemptId: number;
};

// One statement, so it commits before any processing: the attempt is counted even if this worker
// dies mid-way (kill -9, OOM), which is what eventually fails a poison event instead of looping.
// It also closes attempts a dead worker left "running". A row that is not pending (already done,
// or replayed and done again) or whose retry is not due yet starts nothing.
const START_ATTEMPT = preparedStatement("start_attempt", `
  WITH bumped AS (
    UPDATE webhook_inbox SET attempts = attempts + 1
     WHERE id = $1 AND status = 'pending'
       AND (next_attempt_at IS NULL OR next_attempt_at <= now() + interval '1 second')
    RETURNING id, provider, event_id, event_type, resource_id, raw_body, headers, query_string, attempts
  ), abandoned AS (
    UPDATE processing_attempts
       SET outcome = 'abandoned', finished_at = clock_timestamp(),
           duration_ms = (extract(epoch FROM clock_timestamp() - started_at) * 1000)::int,
           error = 'the worker stopped during this attempt'
     WHERE inbox_id = $1 AND outcome = 'running' AND EXISTS (SELECT 1 FROM bumped)
  ), attempt AS (
    -- Numbered across replays (a replay resets the retry budget, not the event's history).
    INSERT INTO processing_attempts (inbox_id, attempt, worker)
    SELECT id, COALESCE((SELECT max(attempt) FROM processing_attempts WHERE inbox_id = $1), 0) + 1, $2 FROM bumped
    RETURNING id
  )
  SELECT bumped.*, attempt.id AS attempt_id FROM bumped, attempt`);

const FINISH_ATTEMPT = preparedStatement("finish_attempt", `
  UPDATE processing_attempts
     SET outcome = $2, error = $3, finished_at = clock_timestamp(),
         duration_ms = (extract(epoch FROM clock_timestamp() - started_at) * 1000)::int
   WHERE id = $1`);

// Re-reads the row under lock: only the attempt that bumped `attempts` last may settle it.
const LOCK_OWN_ATTEMPT = preparedStatement("lock_own_attempt", `SELECT 1 FROM webhook_inbox WHERE id = $1 AND status = 'pending' AND attempts = $2 FOR UPDATE`);

async function startAttempt(deps: ProcessDeps, inboxId: number): Promise<StartedAttempt | null> {
  const { rows } = await deps.pool.query(START_ATTEMPT([inboxId, deps.workerId]));
  const row = rows[0];
  if (!row) return null;
  return {
    id: row.id,
    provider: row.provider,
    eventId: row.event_id,
    eventType: row.event_type,
    resourceId: row.resource_id,
    rawBody: row.raw_body,
    headers: row.headers,
    queryString: row.query_string,
    attempts: row.attempts,
    attemptId: row.attempt_id,
  };
}

// The event's final status and its attempt's outcome, in one statement.
const SETTLE = preparedStatement("settle_event", `
  WITH settled AS (
    UPDATE webhook_inbox
       SET status = $2, ignored_reason = $3, last_error = $4, processed_at = now(), next_attempt_at = NULL
     WHERE id = $1
  )
  UPDATE processing_attempts
     SET outcome = $2, error = COALESCE($4, $3), finished_at = clock_timestamp(),
         duration_ms = (extract(epoch FROM clock_timestamp() - started_at) * 1000)::int
   WHERE id = $5`);

async function settle(
  tx: Queryable,
  started: StartedAttempt,
  status: "processed" | "ignored" | "failed",
  detail: { reason?: IgnoredReason; error?: string } = {},
): Promise<void> {
  await tx.query(SETTLE([started.id, status, detail.reason ?? null, detail.error ?? null, started.attemptId]));
  recordSettled(started.provider, status, detail.reason ?? null);
}

/**
 * A body stored as unparseable that a fixed driver now reads: its columns catch up with it, written
 * exactly as ingest writes them, and committed at once so the row (and the sweeper) see its payment.
 */
async function reviveColumns(deps: ProcessDeps, started: StartedAttempt, columns: NormalizedColumns): Promise<StartedAttempt> {
  await deps.pool.query(
    `UPDATE webhook_inbox
        SET event_type = $3, resource_id = $4, customer_id = $5, customer_email = $6, payload = $7::jsonb,
            occurred_at = $8::timestamptz, occurred_at_precision = $9
      WHERE id = $1 AND status = 'pending' AND attempts = $2`,
    [started.id, started.attempts, columns.type, columns.resourceId, columns.customerId, columns.customerEmail, columns.payload, columns.occurredAt, columns.precision],
  );
  // Its retries then queue behind the other events of its payment, not on a key of their own.
  return { ...started, eventType: columns.type, resourceId: columns.resourceId };
}

export function eventTime(event: NormalizedEvent): EventTime | null {
  return event.occurredAt && event.precision ? { micros: isoToMicros(event.occurredAt), precision: event.precision } : null;
}

/** A refetch that cannot authenticate: the event waits for the operator instead of failing with 401s. */
export class MissingCredentialError extends Error {
  override name = "MissingCredentialError";
  readonly retryAt = new Date(Date.now() + CREDENTIAL_RECHECK_SECONDS * 1000);
}

export type Observation = { snapshot: ChargeSnapshot; at: EventTime | null; source: "event" | "refetch" };

/**
 * The observation an event's own body gives, or null when the worker fetches the charge from the
 * gateway instead (the body is only a notice, or refetch is configured for this type).
 */
export function ownObservation(config: AppConfig, provider: ProviderName, event: NormalizedEvent): Observation | null {
  if (event.charge && !event.refetchRequired && !matchesEventType(config.providers[provider].refetchTypes, event.type)) {
    return { snapshot: event.charge, at: eventTime(event), source: "event" };
  }
  return null;
}

/** The state to apply: the event's own, or, where configured, the gateway's current one. */
async function observe(deps: ProcessDeps, driver: ProviderDriver, event: NormalizedEvent & { resourceId: string }): Promise<Observation> {
  const own = ownObservation(deps.config, driver.name, event);
  if (own) return own;
  const providerConfig = deps.config.providers[driver.name];
  const client = deps.gateways(driver.name);
  if (!driver.refetch || !client) {
    throw new Error(
      `refetch is configured for ${driver.name} ${event.type}, but ${driver.name} has no API to fetch from (set ${driver.name.toUpperCase()}_API_URL)`,
    );
  }
  const missing = missingCredentials(driver, providerConfig);
  if (missing.length > 0) {
    throw new MissingCredentialError(`refetch needs ${notSet(missing)}; waiting for it (set it and restart the worker)`);
  }
  // The fetch starts before any lock is taken; its start time is when the state was true.
  const fetchedAt = BigInt(Date.now()) * 1000n;
  const snapshot = await driver.refetch(event.resourceId, client.fetchJson, {
    credentials: providerConfig.credentials,
    vocabulary: deps.config.standardVocabulary,
  });
  return { snapshot, at: { micros: fetchedAt, precision: "millisecond" }, source: "refetch" };
}

/**
 * Processes one inbox event: parses its stored bytes, optionally refetches the charge (outside any
 * transaction), then in one transaction locks the inbox row and the payment row, applies the state
 * machine and marks the event processed or ignored. Errors retry on the backoff schedule and end
 * as `failed`; an open circuit defers the event without spending an attempt.
 */
export async function processEvent(deps: ProcessDeps, inboxId: number): Promise<ProcessOutcome> {
  let started = await startAttempt(deps, inboxId);
  if (!started) return "skipped";
  const { maxAttempts } = deps.config.worker;

  if (started.attempts > maxAttempts) {
    return failNow(deps, started, `gave up after ${maxAttempts} attempts (workers stopped during earlier attempts)`);
  }
  const driver = findDriver(started.provider);
  if (!driver) return failNow(deps, started, `no driver for provider "${started.provider}"`);
  const normalized = normalizeEvent(driver, started.rawBody, {
    headers: started.headers,
    query: new URLSearchParams(started.queryString ?? ""),
    timeZone: deps.config.providers[driver.name].timeZone,
    vocabulary: deps.config.standardVocabulary,
  });
  // Parsing is deterministic: retrying the same bytes cannot help. A fixed driver + replay can.
  if (!normalized.ok) return failNow(deps, started, normalized.error);
  const { event } = normalized;
  if (started.eventType === UNPARSEABLE_TYPE) started = await reviveColumns(deps, started, normalized.columns);

  try {
    const interesting = event.charge !== null || event.refetchRequired;
    const resourceId = event.resourceId;
    const observation = interesting && resourceId ? await observe(deps, driver, { ...event, resourceId }) : null;
    return await withTransaction(deps.pool, async (tx) => {
      if (!(await tx.query(LOCK_OWN_ATTEMPT([started.id, started.attempts]))).rowCount) {
        await tx.query(FINISH_ATTEMPT([started.attemptId, "abandoned", "superseded by a newer attempt"]));
        return "skipped";
      }
      let result: ApplyResult;
      if (!interesting) result = { outcome: "ignored", reason: "uninteresting_type" };
      else if (!resourceId || !observation) result = { outcome: "ignored", reason: "no_resource" };
      else {
        result = await applyChargeUpdate(tx, {
          provider: started.provider,
          chargeId: resourceId,
          snapshot: observation.snapshot,
          at: observation.at,
          inboxId: started.id,
          source: observation.source,
          createIfMissing: deps.config.providers[driver.name].paymentSource === "gateway",
        });
      }
      if (result.outcome === "processed") await settle(tx, started, "processed");
      else await settle(tx, started, "ignored", { reason: result.reason });
      return result.outcome;
    });
  } catch (error) {
    return scheduleRetry(deps, started, error);
  }
}

/** Settles the event as failed at once (no retry can help), if this attempt still owns it. */
function failNow(deps: ProcessDeps, started: StartedAttempt, error: string): Promise<ProcessOutcome> {
  return withTransaction(deps.pool, async (tx) => {
    if (!(await tx.query(LOCK_OWN_ATTEMPT([started.id, started.attempts]))).rowCount) return "skipped";
    await settle(tx, started, "failed", { error });
    return "failed";
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `${error.name === "Error" ? "" : `${error.name}: `}${error.message}${cause}`.slice(0, 2000);
  }
  return String(error).slice(0, 2000);
}

/** After a failed attempt: retry on the backoff schedule, defer for an open circuit, or give up. */
async function scheduleRetry(deps: ProcessDeps, started: StartedAttempt, error: unknown): Promise<ProcessOutcome> {
  const message = describe(error);
  return withTransaction(deps.pool, async (tx) => {
    if (!(await tx.query(LOCK_OWN_ATTEMPT([started.id, started.attempts]))).rowCount) {
      await tx.query(FINISH_ATTEMPT([started.attemptId, "failed", message]));
      return "skipped";
    }
    if (error instanceof CircuitOpenError || error instanceof MissingCredentialError) {
      // The gateway is known to be down (come back when the circuit half-opens), or we can't
      // authenticate until the operator sets a credential: nothing a retry could fix, attempt not spent.
      await tx.query(
        `UPDATE webhook_inbox SET attempts = attempts - 1, next_attempt_at = $2, last_error = $3 WHERE id = $1`,
        [started.id, error.retryAt, message],
      );
      await tx.query(FINISH_ATTEMPT([started.attemptId, "deferred", message]));
      await dispatchEvents(deps.boss, tx, [started], { startAfter: error.retryAt, expireInSeconds: deps.config.worker.jobExpireSeconds });
      return "deferred";
    }
    if (started.attempts >= deps.config.worker.maxAttempts) {
      await settle(tx, started, "failed", { error: message });
      return "failed";
    }
    const retryAt = new Date(Date.now() + retryDelaySeconds(deps.config.worker.retryDelaysSeconds, started.attempts) * 1000);
    await tx.query(`UPDATE webhook_inbox SET next_attempt_at = $2, last_error = $3 WHERE id = $1`, [started.id, retryAt, message]);
    await tx.query(FINISH_ATTEMPT([started.attemptId, "retry", message]));
    await dispatchEvents(deps.boss, tx, [started], { startAfter: retryAt, expireInSeconds: deps.config.worker.jobExpireSeconds });
    return "retry";
  });
}
