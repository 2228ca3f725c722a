import { createHash } from "node:crypto";
import type { PgBoss } from "pg-boss";
import type { AppConfig } from "../../config/env";
import type { Pool } from "../../db/pool";
import { webhookJobInsertCte } from "../../queue/boss";
import { findDriver } from "../../providers/registry";
import { KeysUnavailableError } from "../../http/jwks-cache";
import type { HeaderMap, ProviderDriver } from "../../providers/types";
import { normalizeEvent, type NormalizedColumns } from "./normalize-event";
import { recordSignatureFailure } from "./signature-failures";
import { rememberNonce } from "./signature-nonces";
import { signatureOptions } from "./signature-keys";

export type IngestDeps = { pool: Pool; boss: PgBoss; config: AppConfig; now?: () => Date };

export type IngestRequest = { provider: string; rawBody: Buffer; headers: HeaderMap; query?: URLSearchParams };

export type IngestOutcome =
  | { kind: "stored"; inboxId: number; duplicate: false; status: "pending" | "failed" }
  | { kind: "duplicate"; duplicate: true }
  | { kind: "unknown_provider" }
  | { kind: "not_configured"; provider: string }
  | { kind: "rejected"; reason: string }
  /** We could not check the signature (the sender's published keys are unreachable): nothing stored. */
  | { kind: "unverifiable"; reason: string };

const REDACTED = "[redacted]";

/** The headers kept with an event: the driver's list, credentials redacted, values capped. */
export function keptHeaders(driver: ProviderDriver, headers: HeaderMap): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of driver.keptHeaders) {
    const value = headers[name];
    if (value !== undefined) kept[name] = value.slice(0, 2048);
  }
  for (const name of driver.secretHeaders) {
    if (headers[name] !== undefined) kept[name] = REDACTED;
  }
  return kept;
}

/** The query string kept with an event (some gateways sign parts of it), credentials redacted. */
export function keptQuery(driver: ProviderDriver, query: URLSearchParams): string | null {
  if (query.size === 0) return null;
  const kept = new URLSearchParams(query);
  for (const name of driver.secretQueryParams ?? []) {
    if (kept.has(name)) kept.set(name, REDACTED);
  }
  return kept.toString().slice(0, 2000);
}

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
    payload, raw_body, headers, query_string, occurred_at, occurred_at_precision, status, last_error, source
  )
  SELECT key.inbox_id, key.received_at, $2, $3, $4::boolean, $5, $6, $7, $8, $9::jsonb, $10::bytea, $11::jsonb, $12,
         $13::timestamptz, $14, $15, $16, $18
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

/**
 * Verifies, normalizes and stores one delivery, and enqueues its processing job in the same
 * statement: a committed row always has its job, a failed statement leaves neither.
 */
export async function ingestEvent(deps: IngestDeps, request: IngestRequest): Promise<IngestOutcome> {
  const driver = findDriver(request.provider);
  if (!driver) return { kind: "unknown_provider" };
  const providerConfig = deps.config.providers[driver.name];
  if (!providerConfig.enabled) return { kind: "not_configured", provider: driver.name };

  const now = deps.now?.() ?? new Date();
  const query = request.query ?? new URLSearchParams();
  let verdict;
  try {
    verdict = await driver.verify(request.rawBody, request.headers, {
      secrets: providerConfig.secrets,
      nowSeconds: Math.floor(now.getTime() / 1000),
      toleranceSeconds: deps.config.toleranceSeconds,
      query,
      ...signatureOptions(driver.name, deps.config),
    });
  } catch (error) {
    if (error instanceof KeysUnavailableError) return { kind: "unverifiable", reason: error.message };
    throw error;
  }
  const reject = async (reason: string): Promise<IngestOutcome> => {
    await recordSignatureFailure(deps.pool, {
      provider: driver.name,
      reason,
      headers: keptHeaders(driver, request.headers),
      rawBody: request.rawBody,
      max: deps.config.signatureFailuresMax,
    });
    return { kind: "rejected", reason };
  };
  if (!verdict.ok) return reject(verdict.reason);

  const normalized = normalizeEvent(driver, request.rawBody, {
    headers: request.headers,
    query,
    timeZone: providerConfig.timeZone,
    vocabulary: deps.config.standardVocabulary,
  });
  const event = normalized.columns;
  if (verdict.nonce && !(await rememberNonce(deps.pool, driver.name, verdict.nonce, event.eventId, deps.config.toleranceSeconds))) {
    return reject("replayed signature: this signed request id and timestamp came before with another event");
  }
  const inboxId = await storeEvent(deps, {
    provider: driver.name,
    columns: normalized.columns,
    error: normalized.ok ? null : normalized.error,
    rawBody: request.rawBody,
    headers: keptHeaders(driver, request.headers),
    queryString: keptQuery(driver, query),
    source: "delivery",
  });
  if (inboxId === null) return { kind: "duplicate", duplicate: true };
  return { kind: "stored", inboxId, duplicate: false, status: normalized.ok ? "pending" : "failed" };
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
export async function storeEvent(deps: Pick<IngestDeps, "pool" | "boss" | "config" | "now">, stored: StoredEvent): Promise<number | null> {
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
    ],
  });
  return rows[0]?.id ?? null;
}
