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
import { REDACTED } from "../../providers/personal-data";
import { ERASED_PAYMENT, deliverySubject, keptBody, type DeliverySubject, type KeptBody } from "./personal-data-at-rest";

// The one door into the inbox: deliveries (ingest-event.ts) and reconciliation store through here.
// It knows nothing of signatures: what reaches it was verified, or came from the gateway's own API.

export type StoreDeps = { pool: Pool; boss: PgBoss; config: AppConfig; now?: () => Date };

// The ingest insert, for any number of events at once (arrays, one element per event). The dedupe
// ledger's ON CONFLICT DO NOTHING on (provider, event_id) decides: under any concurrency exactly one
// insert returns a key, and only that key gets an inbox row (in the month partition of its
// received_at) and a job. Within one statement the first of equal keys is the one inserted (the
// others are duplicates, like a copy already stored). Keys, rows and jobs are one statement
// (pg-boss's own job insert as the last CTE): atomic without BEGIN/COMMIT, one round trip, one
// commit. The bodies travel as one bytea ($29, sent as bytes), each event's payload (JSON text, as
// UTF-8) and raw body a slice of it: as text arrays they were escaped, the raw body hex-encoded, and
// parsed back, about 2.5 times the bytes. The id is taken in the ledger insert so the key points at
// its row; a duplicate only burns a sequence number. Each returned row names the input element
// (`n`, 1-based) it stored.
// The same statement asks which of the events' subject hashes ($25 names each one's element, $26
// the hash) an erasure removed: if any, it stores nothing and returns those (`erased`), so the
// caller redacts the events that name them and writes the batch again. Asked in the storing
// statement, an erasure that committed before it always counts; so does one whose payment's
// customer was erased (HELD), whatever the event names.
const INPUT = `
  SELECT * FROM unnest($2::text[], $3::text[], $4::boolean[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[], $10::int[],
                       $11::int[], $12::int[], $13::text[], $14::text[], $15::timestamptz[], $16::text[], $17::text[], $18::text[],
                       $19::timestamptz[], $20::text[], $21::text[], $22::text[], $23::timestamptz[], $24::text[])
    WITH ORDINALITY AS t(provider, event_id, event_id_derived, event_type, resource_id, customer_id, customer_email, payload_at,
                         payload_length, raw_at, raw_length, headers, query_string, occurred_at, occurred_at_precision, status,
                         last_error, received_at, source, singleton_key, original_sha256, signature_verified_at, gateway_account, n)`;

const ERASED = `
  SELECT DISTINCT c.n, c.hash FROM unnest($25::int[], $26::char(64)[]) AS c(n, hash) JOIN erased_identifiers e ON e.hash = c.hash
  UNION SELECT n, hash FROM held`;

// The events naming a payment whose customer was erased ($28: REDACTED), by their ERASED_PAYMENT
// candidate ($27). It and `erased` are written after the ledger insert (forward references: WITH
// RECURSIVE) so that the statement's start, up to that insert, fits in pg_stat_activity's 1 kB.
const HELD = `
  SELECT c.n, c.hash FROM unnest($25::int[], $26::char(64)[]) AS c(n, hash) JOIN input i USING (n)
    JOIN payments p ON p.provider = i.provider AND p.gateway_charge_id = i.resource_id
   WHERE c.hash = $27 AND p.customer_id = $28`;

const FIRST_OF_EACH_KEY = `
  SELECT DISTINCT ON (provider, event_id) * FROM input WHERE NOT EXISTS (SELECT 1 FROM erased) ORDER BY provider, event_id, n`;

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
         f.customer_email, convert_from(substring($29::bytea FROM f.payload_at FOR f.payload_length), 'UTF8')::jsonb,
         substring($29::bytea FROM f.raw_at FOR f.raw_length), f.headers::jsonb, f.query_string, f.occurred_at, f.occurred_at_precision,
         f.status, f.last_error, f.source, f.original_sha256, f.signature_verified_at,
         CASE WHEN f.original_sha256 IS NULL THEN NULL ELSE now() END, f.gateway_account
    FROM key JOIN firsts f USING (provider, event_id)
  RETURNING id, received_at, status, provider, event_id`;

// Only a pending row gets a job; a failed one (unreadable body) waits for a replay.
const QUEUED = `
  SELECT inserted.id, inserted.received_at, f.singleton_key FROM inserted JOIN firsts f USING (provider, event_id) WHERE inserted.status = 'pending'`;

const STORED = `
  SELECT f.n, key.inbox_id AS id, NULL AS erased FROM key JOIN firsts f USING (provider, event_id)
  UNION ALL SELECT n, NULL, hash FROM erased`;

// Our parts with their spaces collapsed: the statement's start, up to the ledger insert, fits in
// what pg_stat_activity shows of a query (1 kB). pg-boss's part is left as it wrote it.
function storeStatement(job: JobInsertCte): string {
  const ours = (sql: string) => sql.replace(/\s+/g, " ");
  return (
    ours(`WITH RECURSIVE input AS (${INPUT}), firsts AS (${FIRST_OF_EACH_KEY}), key AS (${INSERT_KEYS}), `) +
    ours(`erased AS (${ERASED}), held AS (${HELD}), inserted AS (${INSERT_EVENTS}), queued AS (${QUEUED}), `) +
    `job AS (${job.sql}) ${ours(STORED)}`
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
   * The gateway account it came for: the one its URL named (`/api/webhooks/{provider}/{account}`) or
   * whose reconciliation read it; for the default URL or the default account's reconciliation, the
   * account the body names (accountNamedByBody). Absent: columns.account, else DEFAULT_ACCOUNT.
   */
  account?: string;
  /** The body as the driver parsed it (columns.payload's value); absent, it is parsed again. */
  payload?: unknown;
};

type Pending = {
  stored: StoredEvent;
  receivedAt: Date | null;
  /** What of the body may name its person; null when nothing of it is kept or redacted. */
  subject: DeliverySubject | null;
  /** Its candidates an erasure removed, as far as a store statement has told. */
  erased: string[];
  /** What is written: the body as it came, or redacted. */
  kept: KeptBody;
};

/** The subject hashes a statement should still ask about, as (element, hash) pairs. */
function uncheckedHashes(events: readonly Pending[]): { n: number[]; hash: string[] } {
  const n: number[] = [];
  const hash: string[] = [];
  events.forEach(({ subject, erased }, index) => {
    for (const candidate of subject?.candidates ?? []) {
      if (erased.includes(candidate.value)) continue;
      n.push(index + 1);
      hash.push(candidate.hash);
    }
  });
  return { n, hash };
}

/** The event with more of its candidates erased: its body redacted for all of them. */
function withErased(event: Pending, hashes: ReadonlySet<string>): Pending {
  const subject = event.subject!;
  const erased = [...event.erased, ...subject.candidates.filter(({ hash }) => hashes.has(hash)).map(({ value }) => value)];
  return { ...event, erased, kept: keptBody(subject, erased) };
}

/**
 * Writes the events in one statement: each one's inbox id, or null for a duplicate. When some name
 * an identifier an erasure removed, nothing was written: those are redacted and the batch written
 * again (until a statement finds no new erased identifier).
 */
async function storeTogether(deps: StoreDeps, events: Pending[]): Promise<(number | null)[]> {
  let batch = events;
  for (;;) {
    const written = await writeOnce(deps, batch);
    if (written.kind === "stored") return written.ids;
    batch = batch.map((event, index) => {
      const hashes = written.erased.get(index);
      return hashes ? withErased(event, hashes) : event;
    });
  }
}

/** Each event's payload and raw body as slices (1-based, as SQL's substring counts) of one buffer. */
function packBodies(events: readonly KeptBody[]) {
  const parts: Buffer[] = [];
  let size = 0;
  const slice = (part: Buffer | null) => {
    if (part === null) return { at: null, length: null };
    parts.push(part);
    size += part.length;
    return { at: size - part.length + 1, length: part.length };
  };
  const payloads = events.map(({ columns }) => slice(columns.payload === null ? null : Buffer.from(columns.payload, "utf8")));
  const raws = events.map(({ rawBody }) => slice(rawBody));
  return {
    bytes: Buffer.concat(parts, size),
    payloadAt: payloads.map(({ at }) => at),
    payloadLength: payloads.map(({ length }) => length),
    rawAt: raws.map(({ at }) => at),
    rawLength: raws.map(({ length }) => length),
  };
}

type Written = { kind: "stored"; ids: (number | null)[] } | { kind: "erased"; erased: Map<number, Set<string>> };

async function writeOnce(deps: StoreDeps, events: Pending[]): Promise<Written> {
  const job = await webhookJobInsertCte(deps.boss, { expireInSeconds: deps.config.worker.jobExpireSeconds }, "queued");
  const text = storeStatement(job);
  const column = <T>(pick: (event: Pending) => T): T[] => events.map(pick);
  const unchecked = uncheckedHashes(events);
  const bodies = packBodies(events.map(({ kept }) => kept));
  const { rows } = await deps.pool.query<{ n: number; id: number | null; erased: string | null }>({
    // Prepared once per connection: the planner's work is not redone for every batch.
    name: statementName(text),
    text,
    values: [
      job.template,
      column(({ stored }) => stored.provider),
      column(({ kept }) => kept.columns.eventId),
      column(({ kept }) => kept.columns.eventIdDerived),
      column(({ kept }) => kept.columns.type),
      column(({ kept }) => kept.columns.resourceId),
      column(({ kept }) => kept.columns.customerId),
      column(({ kept }) => kept.columns.customerEmail),
      bodies.payloadAt,
      bodies.payloadLength,
      bodies.rawAt,
      bodies.rawLength,
      column(({ stored }) => JSON.stringify(stored.headers)),
      column(({ stored }) => stored.queryString),
      column(({ kept }) => kept.columns.occurredAt),
      column(({ kept }) => kept.columns.precision),
      column(({ stored }) => (stored.error === null ? "pending" : "failed")),
      column(({ stored }) => stored.error),
      // A clock given to ingest (tests) also dates the row; otherwise the database's transaction time.
      column(({ receivedAt }) => receivedAt),
      column(({ stored }) => stored.source),
      column(({ stored, kept }) => serializationKey(stored.provider, kept.columns.resourceId, kept.columns.eventId)),
      column(({ kept }) => kept.redaction?.originalSha256 ?? null),
      column(({ kept }) => kept.redaction?.verifiedAt ?? null),
      column(({ stored }) => stored.account ?? stored.columns.account ?? DEFAULT_ACCOUNT),
      unchecked.n,
      unchecked.hash,
      ERASED_PAYMENT,
      REDACTED,
      bodies.bytes,
    ],
  });
  const erased = new Map<number, Set<string>>();
  for (const row of rows) {
    if (row.erased !== null) erased.set(row.n - 1, (erased.get(row.n - 1) ?? new Set()).add(row.erased));
  }
  if (erased.size > 0) return { kind: "erased", erased };
  const ids: (number | null)[] = events.map(() => null);
  for (const row of rows) ids[row.n - 1] = row.id;
  return { kind: "stored", ids };
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
        weight: ({ kept }) => kept.rawBody.length,
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
  const subject = driver
    ? deliverySubject(
        {
          driver,
          piiAtRest: deps.config.providers[driver.name].piiAtRest,
          hashKey: deps.config.privacyHashKey,
          now: deps.now?.() ?? new Date(),
        },
        received.columns,
        received.rawBody,
        received.payload,
      )
    : null;
  const kept = subject ? keptBody(subject, []) : { columns: received.columns, rawBody: received.rawBody, redaction: null };
  const pending: Pending = { stored: received, receivedAt: deps.now?.() ?? null, subject, erased: [], kept };
  const groupCommit = deps.config.groupCommit;
  if (!groupCommit) return (await storeTogether(deps, [pending]))[0]!;
  return committerFor(deps, groupCommit).submit(pending);
}
