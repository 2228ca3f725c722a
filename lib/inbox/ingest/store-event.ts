import { createHash } from "node:crypto";
import type { PgBoss } from "pg-boss";
import type { AppConfig } from "../../config/env";
import type { Pool } from "../../db/pool";
import { webhookJobInsertCte } from "../../queue/boss";
import type { NormalizedColumns } from "./normalize-event";
import { findDriver } from "../../providers/registry";
import { keepPersonalData } from "./personal-data-at-rest";

// The one door into the inbox: deliveries (ingest-event.ts) and reconciliation store through here.
// It knows nothing of signatures: what reaches it was verified, or came from the gateway's own API.

export type StoreDeps = { pool: Pool; boss: PgBoss; config: AppConfig; now?: () => Date };

// The ingest insert. The dedupe ledger's ON CONFLICT DO NOTHING on (provider, event_id) decides:
// under any concurrency exactly one insert returns a key, and only that key gets an inbox row (in
// the month partition of its received_at) and a job. Key, row and job are one statement (pg-boss's
// own job insert as the last CTE): atomic without BEGIN/COMMIT, one round trip. The id is taken in
// the ledger insert so the key points at its row; a duplicate only burns a sequence number.
const INSERT_KEY = `
  INSERT INTO inbox_event_keys (provider, event_id, inbox_id, received_at)
  VALUES ($2, $3, nextval('webhook_inbox_id_seq'), COALESCE($17::timestamptz, now()))
  ON CONFLICT (provider, event_id) DO NOTHING
  RETURNING inbox_id, received_at`;

const INSERT_EVENT = `
  INSERT INTO webhook_inbox (
    id, received_at, provider, event_id, event_id_derived, event_type, resource_id, customer_id, customer_email,
    payload, raw_body, headers, query_string, occurred_at, occurred_at_precision, status, last_error, source,
    original_sha256, signature_verified_at, redacted_at
  )
  SELECT key.inbox_id, key.received_at, $2, $3, $4::boolean, $5, $6, $7, $8, $9::jsonb, $10::bytea, $11::jsonb, $12,
         $13::timestamptz, $14, $15, $16, $18, $19::text, $20::timestamptz, CASE WHEN $19::text IS NULL THEN NULL ELSE now() END
    FROM key
  RETURNING id, status`;

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
};

/**
 * Stores one normalized event under its `(provider, event_id)` key and enqueues its job in the same
 * statement; null when the key was already there (a duplicate: nothing written, nothing enqueued).
 * Deliveries and reconciliation both store through here, so a key holds whichever came first.
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
  const event = stored.columns;
  const status = stored.error === null ? "pending" : "failed";
  const job = await webhookJobInsertCte(
    deps.boss,
    { id: 0, provider: stored.provider, resourceId: event.resourceId, eventId: event.eventId },
    { expireInSeconds: deps.config.worker.jobExpireSeconds },
    "inserted",
    "r.status = 'pending'",
  );
  const text = `WITH key AS (${INSERT_KEY}), inserted AS (${INSERT_EVENT}), job AS (${job.sql}) SELECT id FROM inserted`;
  const { rows } = await deps.pool.query<{ id: number }>({
    // Prepared once per connection: the planner's work is not redone for every delivery.
    name: statementName(text),
    text,
    values: [
      job.template,
      stored.provider,
      event.eventId,
      event.eventIdDerived,
      event.type,
      event.resourceId,
      event.customerId,
      event.customerEmail,
      event.payload,
      stored.rawBody,
      JSON.stringify(stored.headers),
      stored.queryString,
      event.occurredAt,
      event.precision,
      status,
      stored.error,
      // A clock given to ingest (tests) also dates the row; otherwise the database's transaction time.
      deps.now?.() ?? null,
      stored.source,
      kept.redaction?.originalSha256 ?? null,
      kept.redaction?.verifiedAt ?? null,
    ],
  });
  return rows[0]?.id ?? null;
}
