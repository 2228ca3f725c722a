import type { PgBoss } from "pg-boss";
import type { AppConfig } from "../config/env";
import { plannedPerCall, preparedStatement, withTransaction, type Pool, type Queryable } from "../db/pool";
import { CircuitOpenError } from "../http/circuit-breaker";
import { applyChargeUpdates, paymentKey, type ChargeUpdate } from "../payments/apply-charge-update";
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
import { observedChargeSchema } from "../canonical/observed-charge";
import type { EventSource } from "./ingest-event";

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
  eventIdDerived: boolean;
  source: EventSource;
  rawBody: Buffer;
  headers: Record<string, string>;
  queryString: string | null;
  attempts: number;
  attemptId: number;
};

// One statement for the whole batch, so it commits before any processing: the attempt is counted
// even if this worker dies mid-way (kill -9, OOM), which is what eventually fails a poison event
// instead of looping. It also closes attempts a dead worker left "running". A row that is not
// pending (already done, or replayed and done again) or whose retry is not due yet starts nothing.
const START_ATTEMPTS = plannedPerCall(`
  WITH bumped AS (
    UPDATE webhook_inbox SET attempts = attempts + 1
     WHERE id = ANY($1::bigint[]) AND status = 'pending'
       AND (next_attempt_at IS NULL OR next_attempt_at <= now() + interval '1 second')
    RETURNING id, provider, event_id, event_id_derived, event_type, resource_id, raw_body, headers, query_string, attempts, source
  ), abandoned AS (
    UPDATE processing_attempts
       SET outcome = 'abandoned', finished_at = clock_timestamp(),
           duration_ms = (extract(epoch FROM clock_timestamp() - started_at) * 1000)::int,
           error = 'the worker stopped during this attempt'
     WHERE inbox_id IN (SELECT id FROM bumped) AND outcome = 'running'
  ), attempt AS (
    -- Numbered across replays (a replay resets the retry budget, not the event's history).
    INSERT INTO processing_attempts (inbox_id, attempt, worker)
    SELECT id, COALESCE((SELECT max(attempt) FROM processing_attempts WHERE inbox_id = bumped.id), 0) + 1, $2 FROM bumped
    RETURNING id, inbox_id
  )
  SELECT bumped.*, attempt.id AS attempt_id FROM bumped JOIN attempt ON attempt.inbox_id = bumped.id`);

const FINISH_ATTEMPT = preparedStatement("finish_attempt", `
  UPDATE processing_attempts
     SET outcome = $2, error = $3, finished_at = clock_timestamp(),
         duration_ms = (extract(epoch FROM clock_timestamp() - started_at) * 1000)::int
   WHERE id = $1`);

// Re-reads the row under lock: only the attempt that bumped `attempts` last may settle it.
const LOCK_OWN_ATTEMPT = preparedStatement("lock_own_attempt", `SELECT 1 FROM webhook_inbox WHERE id = $1 AND status = 'pending' AND attempts = $2 FOR UPDATE`);

async function startAttempts(deps: ProcessDeps, inboxIds: readonly number[]): Promise<Map<number, StartedAttempt>> {
  const { rows } = await deps.pool.query(START_ATTEMPTS([inboxIds, deps.workerId]));
  return new Map(
    rows.map((row) => [
      row.id,
      {
        id: row.id,
        provider: row.provider,
        eventId: row.event_id,
        eventType: row.event_type,
        eventIdDerived: row.event_id_derived,
        source: row.source,
        resourceId: row.resource_id,
        rawBody: row.raw_body,
        headers: row.headers,
        queryString: row.query_string,
        attempts: row.attempts,
        attemptId: row.attempt_id,
      },
    ]),
  );
}

// Each event's final status and its attempt's outcome, in one statement for the batch. Only the
// attempt that bumped `attempts` last may settle its row (the row lock taken here orders it against
// any newer attempt's start); the statement returns the rows it settled.
const SETTLE_EVENTS = plannedPerCall(`
  WITH settling AS (
    SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[], $5::text[], $6::bigint[])
      AS s(inbox_id, attempts, status, reason, error, attempt_id)
  ), settled AS (
    UPDATE webhook_inbox w
       SET status = s.status, ignored_reason = s.reason, last_error = s.error, processed_at = now(), next_attempt_at = NULL
      FROM settling s
     WHERE w.id = s.inbox_id AND w.attempts = s.attempts AND w.status = 'pending'
    RETURNING w.id
  ), finished AS (
    UPDATE processing_attempts a
       SET outcome = s.status, error = COALESCE(s.error, s.reason), finished_at = clock_timestamp(),
           duration_ms = (extract(epoch FROM clock_timestamp() - a.started_at) * 1000)::int
      FROM settling s JOIN settled ON settled.id = s.inbox_id
     WHERE a.id = s.attempt_id
  )
  SELECT id FROM settled`);

type Settled = { started: StartedAttempt; status: "processed" | "ignored" | "failed"; reason?: IgnoredReason; error?: string };

/** A newer attempt started on these events while this one ran: this one must not settle them. */
class SupersededAttempts extends Error {
  override name = "SupersededAttempts";
  constructor(readonly inboxIds: ReadonlySet<number>) {
    super(`superseded by a newer attempt: events ${[...inboxIds].join(", ")}`);
  }
}

/** Settles the events whose attempt is still the latest; throws SupersededAttempts if any is not. */
async function settleEvents(tx: Queryable, settled: readonly Settled[]): Promise<void> {
  if (settled.length === 0) return;
  const { rows } = await tx.query<{ id: number }>(SETTLE_EVENTS([
    settled.map(({ started }) => started.id),
    settled.map(({ started }) => started.attempts),
    settled.map(({ status }) => status),
    settled.map(({ reason }) => reason ?? null),
    settled.map(({ error }) => error ?? null),
    settled.map(({ started }) => started.attemptId),
  ]));
  if (rows.length === settled.length) return;
  const done = new Set(rows.map((row) => row.id));
  throw new SupersededAttempts(new Set(settled.map(({ started }) => started.id).filter((id) => !done.has(id))));
}

/** Counted once the settling transaction has committed. */
function recordAll(settled: readonly Settled[]): void {
  for (const { started, status, reason } of settled) recordSettled(started.provider, status, reason ?? null);
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

/** What a started attempt ends in, decided before any lock is taken. */
type Settlement =
  | { kind: "fail"; started: StartedAttempt; error: string }
  | { kind: "ignore"; started: StartedAttempt; reason: IgnoredReason }
  | { kind: "apply"; started: StartedAttempt; update: ChargeUpdate };

/**
 * Processes a batch of inbox events (pg-boss hands the worker one job per payment per batch): starts
 * their attempts in one statement, parses each event's stored bytes and refetches the charge where
 * configured (outside any transaction), then in one transaction locks the payment rows, applies the
 * state machine and settles every event whose attempt is still the latest. Errors retry on the
 * backoff schedule and end as `failed`; an open circuit defers the event without spending an
 * attempt. If that transaction fails (an unregistered payment, a deadlock), each event is settled
 * again on its own, so one event's error never holds back the others. Outcomes come back in the
 * order of `inboxIds`.
 */
export async function processEvents(deps: ProcessDeps, inboxIds: readonly number[]): Promise<ProcessOutcome[]> {
  const distinct = [...new Set(inboxIds)];
  const started = await startAttempts(deps, distinct);
  const prepared = await Promise.all(
    distinct.map((id) => {
      const attempt = started.get(id);
      return attempt ? prepare(deps, attempt) : ("skipped" as const);
    }),
  );
  const outcomes = new Map<number, ProcessOutcome>();
  const settlements: Settlement[] = [];
  prepared.forEach((item, index) => {
    if (typeof item === "string") outcomes.set(distinct[index]!, item);
    else settlements.push(item);
  });
  // One transaction holds at most one event per payment; another of the same payment (not in one
  // batch by the queue's singleton policy, but guarded anyway) settles after it, in batch order.
  for (const round of oneEventPerPayment(settlements)) {
    const settledOutcomes = await settleTogether(deps, round);
    round.forEach((settlement, index) => outcomes.set(settlement.started.id, settledOutcomes[index]!));
  }
  // A repeated id in the batch was started (and settled) once.
  return inboxIds.map((id, index) => (inboxIds.indexOf(id) === index ? outcomes.get(id)! : "skipped"));
}

/** Processes one inbox event (a batch of one). */
export async function processEvent(deps: ProcessDeps, inboxId: number): Promise<ProcessOutcome> {
  return (await processEvents(deps, [inboxId]))[0]!;
}

function oneEventPerPayment(settlements: readonly Settlement[]): Settlement[][] {
  const rounds: Settlement[][] = [];
  const seen = new Map<string, number>();
  for (const settlement of settlements) {
    const key = settlement.kind === "apply" ? paymentKey(settlement.update.provider, settlement.update.chargeId) : null;
    const round = key === null ? 0 : (seen.get(key) ?? -1) + 1;
    if (key !== null) seen.set(key, round);
    (rounds[round] ??= []).push(settlement);
  }
  return rounds;
}

/** Parses a started attempt and observes its charge: what to settle, or the outcome of a retry. */
async function prepare(deps: ProcessDeps, attempt: StartedAttempt): Promise<Settlement | ProcessOutcome> {
  let started = attempt;
  const { maxAttempts } = deps.config.worker;
  if (started.attempts > maxAttempts) {
    return { kind: "fail", started, error: `gave up after ${maxAttempts} attempts (workers stopped during earlier attempts)` };
  }
  const driver = findDriver(started.provider);
  if (!driver) return { kind: "fail", started, error: `no driver for provider "${started.provider}"` };
  if (started.source === "reconcile" && started.eventIdDerived) return observedSettlement(deps, driver, started);
  const normalized = normalizeEvent(driver, started.rawBody, {
    headers: started.headers,
    query: new URLSearchParams(started.queryString ?? ""),
    timeZone: deps.config.providers[driver.name].timeZone,
    vocabulary: deps.config.standardVocabulary,
  });
  // Parsing is deterministic: retrying the same bytes cannot help. A fixed driver + replay can.
  if (!normalized.ok) return { kind: "fail", started, error: normalized.error };
  const { event } = normalized;
  if (started.eventType === UNPARSEABLE_TYPE) started = await reviveColumns(deps, started, normalized.columns);
  try {
    if (event.charge === null && !event.refetchRequired) return { kind: "ignore", started, reason: "uninteresting_type" };
    const resourceId = event.resourceId;
    if (!resourceId) return { kind: "ignore", started, reason: "no_resource" };
    const observation = await observe(deps, driver, { ...event, resourceId });
    return {
      kind: "apply",
      started,
      update: {
        provider: started.provider,
        chargeId: resourceId,
        snapshot: observation.snapshot,
        at: observation.at,
        inboxId: started.id,
        source: observation.source,
        createIfMissing: deps.config.providers[driver.name].paymentSource === "gateway",
      },
    };
  } catch (error) {
    return scheduleRetry(deps, started, error);
  }
}

/**
 * A charge state reconciliation read from the gateway's authenticated API (a listed resource, or a
 * stuck payment refetched): applied as a refetch at the time it was seen, recorded as "reconcile".
 */
function observedSettlement(deps: ProcessDeps, driver: ProviderDriver, started: StartedAttempt): Settlement {
  let body: unknown;
  try {
    body = JSON.parse(started.rawBody.toString("utf8"));
  } catch {
    body = null;
  }
  const observed = observedChargeSchema.safeParse(body);
  if (!observed.success) return { kind: "fail", started, error: `not an observed charge: ${observed.error.issues[0]?.message}` };
  const { resourceId, snapshot, observedAt } = observed.data;
  return {
    kind: "apply",
    started,
    update: {
      provider: started.provider,
      chargeId: resourceId,
      snapshot,
      at: { micros: isoToMicros(observedAt), precision: "millisecond" },
      inboxId: started.id,
      source: "reconcile",
      createIfMissing: deps.config.providers[driver.name].paymentSource === "gateway",
    },
  };
}

/**
 * Settles the events in one transaction. Events a newer attempt superseded are left to it and the
 * rest settle again without them; on any other failure each event settles on its own (a lone
 * failure retries on the backoff schedule).
 */
async function settleTogether(deps: ProcessDeps, settlements: readonly Settlement[]): Promise<ProcessOutcome[]> {
  if (settlements.length === 0) return [];
  try {
    const { outcomes, settled } = await withTransaction(deps.pool, (tx) => settleInTransaction(tx, settlements));
    recordAll(settled);
    return outcomes;
  } catch (error) {
    if (error instanceof SupersededAttempts) {
      const rest = settlements.filter(({ started }) => !error.inboxIds.has(started.id));
      const settledRest = await settleTogether(deps, rest);
      let next = 0;
      return Promise.all(
        settlements.map(async ({ started }) => {
          if (!error.inboxIds.has(started.id)) return settledRest[next++]!;
          await deps.pool.query(FINISH_ATTEMPT([started.attemptId, "abandoned", "superseded by a newer attempt"]));
          return "skipped";
        }),
      );
    }
    if (settlements.length === 1) return [await scheduleRetry(deps, settlements[0]!.started, error)];
    return (await Promise.all(settlements.map((settlement) => settleTogether(deps, [settlement])))).flat();
  }
}

async function settleInTransaction(
  tx: Queryable,
  settlements: readonly Settlement[],
): Promise<{ outcomes: ProcessOutcome[]; settled: Settled[] }> {
  const applies = settlements.flatMap((s) => (s.kind === "apply" ? [s] : []));
  const results = await applyChargeUpdates(tx, applies.map(({ update }) => update));
  const resultOf = new Map(applies.map(({ started }, index) => [started.id, results[index]!]));
  const settled = settlements.map((settlement): Settled => {
    const { started } = settlement;
    if (settlement.kind === "fail") return { started, status: "failed", error: settlement.error };
    const result = settlement.kind === "ignore" ? { outcome: "ignored" as const, reason: settlement.reason } : resultOf.get(started.id)!;
    return result.outcome === "processed" ? { started, status: "processed" } : { started, status: "ignored", reason: result.reason };
  });
  await settleEvents(tx, settled);
  return { outcomes: settled.map(({ status }) => status), settled };
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
  const failed: Settled = { started, status: "failed", error: message };
  const outcome = await withTransaction(deps.pool, async (tx): Promise<ProcessOutcome> => {
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
      await settleEvents(tx, [failed]);
      return "failed";
    }
    const retryAt = new Date(Date.now() + retryDelaySeconds(deps.config.worker.retryDelaysSeconds, started.attempts) * 1000);
    await tx.query(`UPDATE webhook_inbox SET next_attempt_at = $2, last_error = $3 WHERE id = $1`, [started.id, retryAt, message]);
    await tx.query(FINISH_ATTEMPT([started.attemptId, "retry", message]));
    await dispatchEvents(deps.boss, tx, [started], { startAfter: retryAt, expireInSeconds: deps.config.worker.jobExpireSeconds });
    return "retry";
  });
  if (outcome === "failed") recordAll([failed]);
  return outcome;
}
