import { plannedPerCall, preparedStatement, type Pool, type Queryable } from "../../db/pool";
import { DEFAULT_ACCOUNT } from "../../canonical/gateway-account";
import type { IgnoredReason } from "../../payments/state-machine";
import type { DispatchableEvent } from "../../queue/boss";
import { recordSettled } from "../../observability/metrics";
import type { NormalizedColumns } from "../ingest/normalize-event";
import type { EventSource } from "../ingest/store-event";

// The bookkeeping of processing attempts: every statement that starts, finishes, settles or
// reschedules an attempt of an inbox event, and the rule that only an event's latest attempt may
// settle it.

/** An attempt this worker started: the event's stored bytes and the attempt that counts. */
export type StartedAttempt = Required<DispatchableEvent> & {
  eventType: string;
  eventIdDerived: boolean;
  source: EventSource;
  rawBody: Buffer;
  headers: Record<string, string>;
  queryString: string | null;
  /** This attempt's number against the retry budget (the row's `attempts` once it ends). */
  attempts: number;
  attemptId: number;
  /** Its gateway account (webhook_inbox.gateway_account). */
  account: string;
};

// One statement for the whole batch, so it commits before any processing. The event's row is locked,
// not rewritten: its `attempts` counts the attempts that ended (an ending rewrites the row anyway),
// and this attempt's number is one more. An attempt still running (its worker died: kill -9, OOM;
// or its job expired) is closed as abandoned and counted here, so a poison event that kills its
// workers still spends its tries and fails instead of looping, and that attempt, were its worker
// alive, can no longer settle (it would find `attempts` moved). A row that is not pending (already
// done, or replayed and done again) or whose retry is not due yet starts nothing.
const START_ATTEMPTS = plannedPerCall(`
  WITH locked AS (
    SELECT id, received_at, provider, event_id, event_id_derived, event_type, resource_id, raw_body, headers, query_string, attempts,
           source, gateway_account
      FROM webhook_inbox
     WHERE id = ANY($1::bigint[]) AND status = 'pending'
       AND (next_attempt_at IS NULL OR next_attempt_at <= now() + interval '1 second')
       -- The jobs' received_at, when every one carries it: planned per call, only their partitions are read.
       AND ($3::timestamptz[] IS NULL OR received_at = ANY($3::timestamptz[]))
       FOR NO KEY UPDATE
  ), abandoned AS (
    UPDATE processing_attempts
       SET outcome = 'abandoned', finished_at = clock_timestamp(),
           duration_ms = (extract(epoch FROM clock_timestamp() - started_at) * 1000)::int,
           error = 'the worker stopped during this attempt'
     WHERE inbox_id IN (SELECT id FROM locked) AND outcome = 'running'
    RETURNING inbox_id
  ), counted AS (
    -- Confined to the same partitions as the lock (its rows are some of those): otherwise the update
    -- is planned over every partition, on every call, though it rarely finds a row.
    UPDATE webhook_inbox SET attempts = attempts + 1
     WHERE id IN (SELECT inbox_id FROM abandoned) AND ($3::timestamptz[] IS NULL OR received_at = ANY($3::timestamptz[]))
    RETURNING id, attempts
  ), attempt AS (
    -- Numbered across replays (a replay resets the retry budget, not the event's history).
    INSERT INTO processing_attempts (inbox_id, attempt, worker)
    SELECT id, COALESCE((SELECT max(attempt) FROM processing_attempts WHERE inbox_id = locked.id), 0) + 1, $2 FROM locked
    RETURNING id, inbox_id
  )
  SELECT locked.id, to_jsonb(locked.received_at) #>> '{}' AS "receivedAt", locked.provider, locked.event_id AS "eventId", locked.event_type AS "eventType",
         locked.event_id_derived AS "eventIdDerived", locked.source,
         locked.resource_id AS "resourceId", locked.raw_body AS "rawBody", locked.headers,
         locked.query_string AS "queryString", COALESCE(counted.attempts, locked.attempts) + 1 AS attempts,
         attempt.id AS "attemptId", locked.gateway_account AS account
    FROM locked JOIN attempt ON attempt.inbox_id = locked.id LEFT JOIN counted ON counted.id = locked.id`);

const FINISH_ATTEMPT = preparedStatement(
  "finish_attempt",
  `
  UPDATE processing_attempts
     SET outcome = $2, error = $3, finished_at = clock_timestamp(),
         duration_ms = (extract(epoch FROM clock_timestamp() - started_at) * 1000)::int
   WHERE id = $1`,
);

// Re-reads the row under lock: only the latest attempt (no other ended or was counted since it
// started) may settle it.
const LOCK_OWN_ATTEMPT = preparedStatement(
  "lock_own_attempt",
  `SELECT 1 FROM webhook_inbox WHERE id = $1 AND status = 'pending' AND attempts = $2 - 1 FOR UPDATE`,
);

/**
 * Starts an attempt of each pending, due event in one statement; events not started are absent.
 * `receivedAt` (the jobs', in the order of `inboxIds`) confines it to their partitions when complete.
 */
export async function startAttempts(
  pool: Pool,
  workerId: string,
  inboxIds: readonly number[],
  receivedAt: readonly (string | undefined)[] = [],
): Promise<Map<number, StartedAttempt>> {
  const complete = receivedAt.length === inboxIds.length && receivedAt.every((at) => at !== undefined);
  const { rows } = await pool.query<StartedAttempt>(START_ATTEMPTS([inboxIds, workerId, complete ? receivedAt : null]));
  return new Map(rows.map((row) => [row.id, row]));
}

// Each event's final status and its attempt's outcome, in one statement for the batch, counting the
// attempt. Only the latest attempt may settle its row (the row lock taken here orders it against any
// newer attempt's start, which counts a running one); the statement returns the rows it settled.
const SETTLE_EVENTS = plannedPerCall(`
  WITH settling AS (
    SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[], $5::text[], $6::bigint[])
      AS s(inbox_id, attempts, status, reason, error, attempt_id)
  ), settled AS (
    UPDATE webhook_inbox w
       SET status = s.status, ignored_reason = s.reason, last_error = s.error, processed_at = now(), next_attempt_at = NULL,
           attempts = s.attempts
      FROM settling s
     WHERE w.id = s.inbox_id AND w.attempts = s.attempts - 1 AND w.status = 'pending'
       AND w.received_at = ANY($7::timestamptz[])
    RETURNING w.id
  ), finished AS (
    UPDATE processing_attempts a
       SET outcome = s.status, error = COALESCE(s.error, s.reason), finished_at = clock_timestamp(),
           duration_ms = (extract(epoch FROM clock_timestamp() - a.started_at) * 1000)::int
      FROM settling s JOIN settled ON settled.id = s.inbox_id
     WHERE a.id = s.attempt_id
  )
  SELECT id FROM settled`);

export type Settled = { started: StartedAttempt; status: "processed" | "ignored" | "failed"; reason?: IgnoredReason; error?: string };

/** A newer attempt started on these events while this one ran: this one must not settle them. */
export class SupersededAttempts extends Error {
  override name = "SupersededAttempts";
  constructor(readonly inboxIds: ReadonlySet<number>) {
    super(`superseded by a newer attempt: events ${[...inboxIds].join(", ")}`);
  }
}

/** Settles the events whose attempt is still the latest; throws SupersededAttempts if any is not. */
export async function settleEvents(tx: Queryable, settled: readonly Settled[]): Promise<void> {
  if (settled.length === 0) return;
  const { rows } = await tx.query<{ id: number }>(
    SETTLE_EVENTS([
      settled.map(({ started }) => started.id),
      settled.map(({ started }) => started.attempts),
      settled.map(({ status }) => status),
      settled.map(({ reason }) => reason ?? null),
      settled.map(({ error }) => error ?? null),
      settled.map(({ started }) => started.attemptId),
      settled.map(({ started }) => started.receivedAt),
    ]),
  );
  if (rows.length === settled.length) return;
  const done = new Set(rows.map((row) => row.id));
  throw new SupersededAttempts(new Set(settled.map(({ started }) => started.id).filter((id) => !done.has(id))));
}

/** Counted once the settling transaction has committed. */
export function recordAll(settled: readonly Settled[]): void {
  for (const { started, status, reason } of settled) recordSettled(started.provider, status, reason ?? null);
}

/**
 * A body stored as unparseable that a fixed driver now reads: its columns catch up with it, written
 * exactly as ingest writes them, and committed at once so the row (and the sweeper) see its payment.
 */
export async function reviveColumns(pool: Pool, started: StartedAttempt, columns: NormalizedColumns): Promise<StartedAttempt> {
  await pool.query(
    `UPDATE webhook_inbox
        SET event_type = $3, resource_id = $4, customer_id = $5, customer_email = $6, payload = $7::jsonb,
            occurred_at = $8::timestamptz, occurred_at_precision = $9,
            gateway_account = CASE WHEN gateway_account = '${DEFAULT_ACCOUNT}' THEN COALESCE($10, gateway_account) ELSE gateway_account END
      WHERE id = $1 AND status = 'pending' AND attempts = $2 - 1`,
    [
      started.id,
      started.attempts,
      columns.type,
      columns.resourceId,
      columns.customerId,
      columns.customerEmail,
      columns.payload,
      columns.occurredAt,
      columns.precision,
      columns.account,
    ],
  );
  // Its retries then queue behind the other events of its payment, not on a key of their own. The
  // account its body names counts only where its URL named none (stored as the default account).
  const account = started.account === DEFAULT_ACCOUNT ? (columns.account ?? started.account) : started.account;
  return { ...started, eventType: columns.type, resourceId: columns.resourceId, account };
}

/** Closes an attempt without settling its event (superseded, deferred, or rescheduled). */
export async function finishAttempt(
  db: Queryable,
  attemptId: number,
  outcome: "abandoned" | "failed" | "deferred" | "retry",
  error: string,
): Promise<void> {
  await db.query(FINISH_ATTEMPT([attemptId, outcome, error]));
}

/** Locks the event's row if this attempt is still its latest; false when a newer one started. */
export async function lockOwnAttempt(tx: Queryable, started: StartedAttempt): Promise<boolean> {
  return ((await tx.query(LOCK_OWN_ATTEMPT([started.id, started.attempts]))).rowCount ?? 0) > 0;
}

/** The attempt doesn't count (the gateway is down, a credential is missing): look again at `retryAt`. */
export async function deferAttempt(tx: Queryable, started: StartedAttempt, retryAt: Date, error: string): Promise<void> {
  await tx.query(`UPDATE webhook_inbox SET next_attempt_at = $2, last_error = $3 WHERE id = $1`, [started.id, retryAt, error]);
  await finishAttempt(tx, started.attemptId, "deferred", error);
}

/** The attempt failed (it counts) and another is due at `retryAt`. */
export async function rescheduleAttempt(tx: Queryable, started: StartedAttempt, retryAt: Date, error: string): Promise<void> {
  await tx.query(`UPDATE webhook_inbox SET attempts = $4, next_attempt_at = $2, last_error = $3 WHERE id = $1`, [
    started.id,
    retryAt,
    error,
    started.attempts,
  ]);
  await finishAttempt(tx, started.attemptId, "retry", error);
}
