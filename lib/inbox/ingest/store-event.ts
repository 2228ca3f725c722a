import { createHash } from "node:crypto";
import type { PgBoss } from "pg-boss";
import type { AppConfig } from "../../config/env";
import { isDatabaseUnavailable, type Pool } from "../../db/pool";
import { webhookJobInsertCte, type JobInsertCte } from "../../queue/boss";
import { serializationKey } from "../../queue/queues";
import { createGroupCommitter, type GroupCommitter } from "./group-commit";
import type { NormalizedColumns } from "./normalize-event";
import { findDriver } from "../../providers/registry";
import { DEFAULT_ACCOUNT } from "../../canonical/gateway-account";
import { keepPersonalData, type RedactedAtRest } from "./personal-data-at-rest";

// The one door into the inbox: deliveries (ingest-event.ts) and reconciliation store through here.
// It knows nothing of signatures: what reaches it was verified, or came from the gateway's own API.

export type StoreDeps = { pool: Pool; boss: PgBoss; config: AppConfig; now?: () => Date };

// The ingest insert, for any number of events at once (arrays, one element per event). The dedupe
// ledger's ON CONFLICT DO NOTHING on (provider, event_id) decides: under any concurrency exactly one
// insert returns a key, and only that key gets an inbox row (in the month partition of its
// received_at) and a job. Within one statement the first of equal keys is the one inserted (the
// others are duplicates, like a copy already stored). Keys, rows and jobs are one statement
// (pg-boss's own job insert as the last CTE): atomic without BEGIN/COMMIT, one round trip, one
// commit. The id is taken in the ledger insert so the key points at its row; a duplicate only burns
// a sequence number. Each returned row names the input element (`n`, 1-based) it stored.
const INPUT = `
  SELECT * FROM unnest($2::text[], $3::text[], $4::boolean[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                       $10::bytea[], $11::text[], $12::text[], $13::timestamptz[], $14::text[], $15::text[], $16::text[],
                       $17::timestamptz[], $18::text[], $19::text[], $20::text[], $21::timestamptz[], $22::text[])
    WITH ORDINALITY AS t(provider, event_id, event_id_derived, event_type, resource_id, customer_id, customer_email, payload,
                         raw_body, headers, query_string, occurred_at, occurred_at_precision, status, last_error,
                         received_at, source, singleton_key, original_sha256, signature_verified_at, gateway_account, n)`;

const FIRST_OF_EACH_KEY = `SELECT DISTINCT ON (provider, event_id) * FROM input ORDER BY provider, event_id, n`;

const INSERT_KEYS = `
  INSERT INTO inbox_event_keys (provider, event_id, inbox_id, received_at)
  SELECT provider, event_id, nextval('webhook_inbox_id_seq'), COALESCE(received_at, now()) FROM firsts ORDER BY n
  ON CONFLICT (provider, event_id) DO NOTHING
  RETURNING inbox_id, received_at, provider, event_id`;

const INSERT_EVENTS = `
  INSERT INTO webhook_inbox (
    id, received_at, provider, event_id, event_id_derived, event_type, resource_id, customer_id, customer_email,
    payload, raw_body, headers, query_string, occurred_at, occurred_at_precision, status, last_error, source,
    original_sha256, signature_verified_at, redacted_at, gateway_account
  )
  SELECT key.inbox_id, key.received_at, f.provider, f.event_id, f.event_id_derived, f.event_type, f.resource_id, f.customer_id,
         f.customer_email, f.payload::jsonb, f.raw_body, f.headers::jsonb, f.query_string, f.occurred_at, f.occurred_at_precision,
         f.status, f.last_error, f.source, f.original_sha256, f.signature_verified_at,
         CASE WHEN f.original_sha256 IS NULL THEN NULL ELSE now() END, f.gateway_account
    FROM key JOIN firsts f USING (provider, event_id)
  RETURNING id, status, provider, event_id`;

// Only a pending row gets a job; a failed one (unreadable body) waits for a replay.
const QUEUED = `
  SELECT inserted.id, f.singleton_key FROM inserted JOIN firsts f USING (provider, event_id) WHERE inserted.status = 'pending'`;

const STORED = `SELECT f.n, key.inbox_id AS id FROM key JOIN firsts f USING (provider, event_id)`;

function storeStatement(job: JobInsertCte): string {
  return (
    `WITH input AS (${INPUT}), firsts AS (${FIRST_OF_EACH_KEY}), key AS (${INSERT_KEYS}), inserted AS (${INSERT_EVENTS}), ` +
    `queued AS (${QUEUED}), job AS (${job.sql}) ${STORED}`
  );
}

const statementNames = new Map<string, string>();

// A prepared statement's name must always mean the same text on a connection; the text is constant
// in practice, and a new one (another pg-boss statement) simply gets a new name.
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `ingest-event-${createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
    statementNames.set(text, name);
  }
  return name;
}

/** Where an inbox row came from: POSTed by the gateway, or recovered from its API by reconciliation. */
export type EventSource = "delivery" | "reconcile";

export type StoredEvent = {
  provider: string;
  columns: NormalizedColumns;
  /** Why the body could not be read (stored as failed), or null. */
  error: string | null;
  rawBody: Buffer;
  /** Already kept (credentials redacted) by the caller. */
  headers: Record<string, string>;
  queryString: string | null;
  source: EventSource;
  /**
   * The gateway account it came for, when its URL named one (`/api/webhooks/{provider}/{account}`) or
   * a reconciliation read it with that account's credentials. Absent: the account the body names
   * (columns.account: its driver's accountOf), else DEFAULT_ACCOUNT.
   */
  account?: string;
};

type Pending = { stored: StoredEvent; receivedAt: Date | null; redaction: RedactedAtRest | null };

/** Writes the events in one statement: each one's inbox id, or null for a duplicate. */
async function storeTogether(deps: StoreDeps, events: Pending[]): Promise<(number | null)[]> {
  const job = await webhookJobInsertCte(deps.boss, { expireInSeconds: deps.config.worker.jobExpireSeconds }, "queued");
  const text = storeStatement(job);
  const column = <T>(pick: (event: Pending) => T): T[] => events.map(pick);
  const { rows } = await deps.pool.query<{ n: number; id: number }>({
    // Prepared once per connection: the planner's work is not redone for every batch.
    name: statementName(text),
    text,
    values: [
      job.template,
      column(({ stored }) => stored.provider),
      column(({ stored }) => stored.columns.eventId),
      column(({ stored }) => stored.columns.eventIdDerived),
      column(({ stored }) => stored.columns.type),
      column(({ stored }) => stored.columns.resourceId),
      column(({ stored }) => stored.columns.customerId),
      column(({ stored }) => stored.columns.customerEmail),
      column(({ stored }) => stored.columns.payload),
      column(({ stored }) => stored.rawBody),
      column(({ stored }) => JSON.stringify(stored.headers)),
      column(({ stored }) => stored.queryString),
      column(({ stored }) => stored.columns.occurredAt),
      column(({ stored }) => stored.columns.precision),
      column(({ stored }) => (stored.error === null ? "pending" : "failed")),
      column(({ stored }) => stored.error),
      // A clock given to ingest (tests) also dates the row; otherwise the database's transaction time.
      column(({ receivedAt }) => receivedAt),
      column(({ stored }) => stored.source),
      column(({ stored }) => serializationKey(stored.provider, stored.columns.resourceId, stored.columns.eventId)),
      column(({ redaction }) => redaction?.originalSha256 ?? null),
      column(({ redaction }) => redaction?.verifiedAt ?? null),
      column(({ stored }) => stored.account ?? stored.columns.account ?? DEFAULT_ACCOUNT),
    ],
  });
  const ids: (number | null)[] = events.map(() => null);
  for (const row of rows) ids[row.n - 1] = row.id;
  return ids;
}

// A statement's bodies are sent hex-encoded in one message: a batch of large bodies stops early.
const MAX_BATCH_BODY_BYTES = 4 * 1024 * 1024;
// At most this many of a process's connections store webhooks at once; the rest stay free for the
// console and the change feed (the web process shares its pool with them).
const MAX_BATCHES_IN_FLIGHT = 4;

// One committer per pool and queue: the web process and `npm run ingest` each have one of each.
const committers = new WeakMap<Pool, WeakMap<PgBoss, GroupCommitter<Pending, number | null>>>();

function committerFor(deps: StoreDeps, options: { windowMs: number; maxBatch: number }): GroupCommitter<Pending, number | null> {
  let byBoss = committers.get(deps.pool);
  if (!byBoss) committers.set(deps.pool, (byBoss = new WeakMap()));
  let committer = byBoss.get(deps.boss);
  if (!committer) {
    committer = createGroupCommitter<Pending, number | null>(
      {
        write: (events) => storeTogether(deps, events),
        weight: ({ stored }) => stored.rawBody.length,
        failsEveryone: isDatabaseUnavailable,
      },
      { ...options, maxWeight: MAX_BATCH_BODY_BYTES, maxInFlight: MAX_BATCHES_IN_FLIGHT },
    );
    byBoss.set(deps.boss, committer);
  }
  return committer;
}

/**
 * Stores one normalized event under its `(provider, event_id)` key and enqueues its job in the same
 * statement; null when the key was already there (a duplicate: nothing written, nothing enqueued).
 * With group commit on, the statement may hold other events stored at the same moment; it resolves
 * only once that statement committed. Deliveries and reconciliation both store through here, so a
 * key holds whichever came first.
 */
export async function storeEvent(deps: StoreDeps, received: StoredEvent): Promise<number | null> {
  const driver = findDriver(received.provider);
  // Verified (or fetched) as the bytes came; from here on, only what may be kept of the person.
  const kept = driver
    ? await keepPersonalData(
        deps.pool,
        {
          driver,
          piiAtRest: deps.config.providers[driver.name].piiAtRest,
          hashKey: deps.config.privacyHashKey,
          now: deps.now?.() ?? new Date(),
        },
        received.columns,
        received.rawBody,
      )
    : { columns: received.columns, rawBody: received.rawBody, redaction: null };
  const stored = { ...received, columns: kept.columns, rawBody: kept.rawBody };
  const pending: Pending = { stored, receivedAt: deps.now?.() ?? null, redaction: kept.redaction };
  const groupCommit = deps.config.groupCommit;
  if (!groupCommit) return (await storeTogether(deps, [pending]))[0]!;
  return committerFor(deps, groupCommit).submit(pending);
}
