import type { PgBoss } from "pg-boss";
import type { AppConfig } from "../config/env";
import { withTransaction, type Pool } from "../db/pool";
import { dispatchEvents } from "../queue/boss";
import { findDriver } from "../providers/registry";
import { rawBodyKey } from "../providers/signature";
import { ParseError, type HeaderMap, type NormalizedEvent, type ProviderDriver } from "../providers/types";
import { recordSignatureFailure } from "./signature-failures";

export type IngestDeps = { pool: Pool; boss: PgBoss; config: AppConfig; now?: () => Date };

export type IngestRequest = { provider: string; rawBody: Buffer; headers: HeaderMap; query?: URLSearchParams };

export type IngestOutcome =
  | { kind: "stored"; inboxId: number; duplicate: false; status: "pending" | "failed" }
  | { kind: "duplicate"; duplicate: true }
  | { kind: "unknown_provider" }
  | { kind: "not_configured"; provider: string }
  | { kind: "rejected"; reason: string };

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

/** A signed body that no driver rule could read: kept, keyed by its bytes, for a fixed driver to replay. */
function unparseableEvent(raw: Buffer, error: ParseError): NormalizedEvent & { error: string } {
  return {
    eventId: rawBodyKey(raw),
    eventIdDerived: true,
    type: "unparseable",
    resourceId: null,
    occurredAt: null,
    precision: null,
    customerId: null,
    customerEmail: null,
    charge: null,
    refetchRequired: false,
    payload: null,
    error: error.message,
  };
}

// jsonb cannot hold \u0000; such a body is still stored (raw_body), just not searchable as JSON.
function jsonbText(payload: unknown): string | null {
  if (payload === null || payload === undefined) return null;
  const text = JSON.stringify(payload);
  return text.includes("\\u0000") ? null : text;
}

// The ingest insert. ON CONFLICT DO NOTHING on (provider, event_id) is what deduplicates: under any
// concurrency exactly one insert returns a row, and only that one enqueues a job.
const INSERT_EVENT = `
  INSERT INTO webhook_inbox (
    provider, event_id, event_id_derived, event_type, resource_id, customer_id, customer_email,
    payload, raw_body, headers, query_string, occurred_at, occurred_at_precision, status, last_error
  ) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10::jsonb, $11, $12::timestamptz, $13, $14, $15)
  ON CONFLICT (provider, event_id) DO NOTHING
  RETURNING id`;

/**
 * Verifies, normalizes and stores one delivery, and enqueues its processing job in the same
 * transaction: a committed row always has its job, a rolled-back one has neither.
 */
export async function ingestEvent(deps: IngestDeps, request: IngestRequest): Promise<IngestOutcome> {
  const driver = findDriver(request.provider);
  if (!driver) return { kind: "unknown_provider" };
  const providerConfig = deps.config.providers[driver.name];
  if (providerConfig.secrets.length === 0) return { kind: "not_configured", provider: driver.name };

  const now = deps.now?.() ?? new Date();
  const query = request.query ?? new URLSearchParams();
  const verdict = driver.verify(request.rawBody, request.headers, {
    secrets: providerConfig.secrets,
    nowSeconds: Math.floor(now.getTime() / 1000),
    toleranceSeconds: deps.config.toleranceSeconds,
    query,
  });
  if (!verdict.ok) {
    await recordSignatureFailure(deps.pool, {
      provider: driver.name,
      reason: verdict.reason,
      headers: keptHeaders(driver, request.headers),
      rawBody: request.rawBody,
      max: deps.config.signatureFailuresMax,
    });
    return { kind: "rejected", reason: verdict.reason };
  }

  let event: NormalizedEvent & { error?: string };
  try {
    event = driver.parse(request.rawBody, {
      headers: request.headers,
      query,
      timeZone: deps.config.providers[driver.name].timeZone,
      vocabulary: deps.config.standardVocabulary,
    });
  } catch (error) {
    if (!(error instanceof ParseError)) throw error;
    event = unparseableEvent(request.rawBody, error);
  }
  const status = event.error === undefined ? "pending" : "failed";

  return withTransaction(deps.pool, async (client) => {
    const { rows } = await client.query<{ id: number }>(INSERT_EVENT, [
      driver.name,
      event.eventId,
      event.eventIdDerived,
      event.type,
      event.resourceId,
      event.customerId,
      // Stored lower-case so a search by e-mail is one index lookup.
      event.customerEmail?.toLowerCase() ?? null,
      jsonbText(event.payload),
      request.rawBody,
      JSON.stringify(keptHeaders(driver, request.headers)),
      keptQuery(driver, query),
      event.occurredAt,
      event.precision,
      status,
      event.error ?? null,
    ]);
    const inserted = rows[0];
    if (!inserted) return { kind: "duplicate", duplicate: true } as const;
    if (status === "pending") {
      await dispatchEvents(deps.boss, client, [
        { id: inserted.id, provider: driver.name, resourceId: event.resourceId, eventId: event.eventId },
      ], { expireInSeconds: deps.config.worker.jobExpireSeconds });
    }
    return { kind: "stored", inboxId: inserted.id, duplicate: false, status } as const;
  });
}
