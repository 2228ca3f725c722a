import { enableHint, findDriver } from "../../providers/registry";
import { KeysUnavailableError } from "../../http/jwks-cache";
import type { HeaderMap, ProviderDriver } from "../../providers/types";
import { normalizeEvent } from "./normalize-event";
import { recordSignatureFailure } from "./signature-failures";
import { rememberNonce } from "./signature-nonces";
import { verificationNeeds } from "./signature-keys";
import { storeEvent, type StoreDeps } from "./store-event";

export type IngestDeps = StoreDeps;

export type IngestRequest = { provider: string; rawBody: Buffer; headers: HeaderMap; query?: URLSearchParams };

export type IngestOutcome =
  | { kind: "stored"; inboxId: number; duplicate: false; status: "pending" | "failed" }
  | { kind: "duplicate"; duplicate: true }
  | { kind: "unknown_provider" }
  | { kind: "not_configured"; provider: string; /** What turns it on, in its driver's words (enableHint). */ enableWith: string }
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

/**
 * Verifies, normalizes and stores one delivery, and enqueues its processing job in the same
 * statement: a committed row always has its job, a failed statement leaves neither.
 */
export async function ingestEvent(deps: IngestDeps, request: IngestRequest): Promise<IngestOutcome> {
  const driver = findDriver(request.provider);
  if (!driver) return { kind: "unknown_provider" };
  const providerConfig = deps.config.providers[driver.name];
  if (!providerConfig.enabled) return { kind: "not_configured", provider: driver.name, enableWith: enableHint(driver) };

  const now = deps.now?.() ?? new Date();
  const query = request.query ?? new URLSearchParams();
  let verdict;
  try {
    verdict = await driver.verify(request.rawBody, request.headers, {
      secrets: providerConfig.secrets,
      nowSeconds: Math.floor(now.getTime() / 1000),
      toleranceSeconds: deps.config.toleranceSeconds,
      query,
      ...verificationNeeds(driver, providerConfig),
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
    settings: providerConfig.settings,
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
    payload: normalized.ok ? normalized.event.payload : undefined,
  });
  if (inboxId === null) return { kind: "duplicate", duplicate: true };
  return { kind: "stored", inboxId, duplicate: false, status: normalized.ok ? "pending" : "failed" };
}
