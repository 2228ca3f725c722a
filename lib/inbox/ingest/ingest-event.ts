import { DEFAULT_ACCOUNT } from "../../canonical/gateway-account";
import { configAccounts, type AccountDirectory } from "../../gateway-accounts/account-directory";
import type { GatewayAccount } from "../../gateway-accounts/gateway-account";
import { enableHint, findDriver, type ProviderName } from "../../providers/registry";
import { KeysUnavailableError } from "../../http/jwks-cache";
import type { HeaderMap, ProviderDriver } from "../../providers/types";
import { normalizeEvent } from "./normalize-event";
import { recordSignatureFailure } from "./signature-failures";
import { rememberNonce } from "./signature-nonces";
import { verificationNeeds } from "./signature-keys";
import { storeEvent, type StoreDeps } from "./store-event";
import { accountNamedByBody } from "./event-account";

/** `accounts`: the process's gateway accounts (unset: the configuration's alone). */
export type IngestDeps = StoreDeps & { accounts?: AccountDirectory };

export type IngestRequest = {
  provider: string;
  rawBody: Buffer;
  headers: HeaderMap;
  query?: URLSearchParams;
  /** The account its URL names (`/api/webhooks/{provider}/{account}`, deliveryAccount); unset: the default. */
  account?: GatewayAccount;
};

export type IngestOutcome =
  | { kind: "stored"; inboxId: number; duplicate: false; status: "pending" | "failed" }
  | { kind: "duplicate"; duplicate: true }
  | { kind: "unknown_provider" }
  | {
      kind: "not_configured";
      provider: string;
      /** What turns it on: in its driver's words (enableHint) for the default account, an account's secret otherwise. */
      enableWith: string;
      /** A named account with no secret. */
      account?: string;
    }
  /** The URL names an account the gateway doesn't have: nothing to verify with, nothing stored. */
  | { kind: "unknown_account"; provider: string; account: string }
  /** The URL's account is disabled, or its secrets can't be opened: refused for now (the gateway retries). */
  | { kind: "account_unavailable"; provider: string; account: string; reason: "disabled" | "unreadable" }
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
 * The account a delivery's URL names, looked up before its body is read: the account, or the answer
 * that refuses it (unknown: 404; disabled or unreadable: retry later). `default` is the default
 * account, as `/api/webhooks/{provider}` is.
 */
export async function deliveryAccount(
  deps: Pick<IngestDeps, "config" | "accounts">,
  provider: ProviderName,
  name: string,
): Promise<{ account: GatewayAccount } | { refused: IngestOutcome }> {
  const accounts = deps.accounts ?? configAccounts(deps.config);
  await accounts.ready();
  const account = accounts.find(provider, name);
  if (!account) return { refused: { kind: "unknown_account", provider, account: name } };
  if (!account.enabled) return { refused: { kind: "account_unavailable", provider, account: name, reason: "disabled" } };
  if (account.unreadable) return { refused: { kind: "account_unavailable", provider, account: name, reason: "unreadable" } };
  return { account };
}

/**
 * Verifies, normalizes and stores one delivery, and enqueues its processing job in the same
 * statement: a committed row always has its job, a failed statement leaves neither. It is verified
 * with its account's secrets only (the URL's, else the default's): another account's secret is a
 * bad signature here.
 */
export async function ingestEvent(deps: IngestDeps, request: IngestRequest): Promise<IngestOutcome> {
  const driver = findDriver(request.provider);
  if (!driver) return { kind: "unknown_provider" };
  const providerConfig = deps.config.providers[driver.name];
  const account = request.account ?? (deps.accounts ?? configAccounts(deps.config)).find(driver.name, DEFAULT_ACCOUNT)!;
  const named = account.name === DEFAULT_ACCOUNT ? undefined : account.name;
  if (account.secrets.length === 0 && !providerConfig.enabledWithoutSecret) {
    return named
      ? {
          kind: "not_configured",
          provider: driver.name,
          account: named,
          enableWith: `give ${driver.name} account "${named}" a webhook secret`,
        }
      : { kind: "not_configured", provider: driver.name, enableWith: enableHint(driver) };
  }

  const now = deps.now?.() ?? new Date();
  const query = request.query ?? new URLSearchParams();
  let verdict;
  try {
    verdict = await driver.verify(request.rawBody, request.headers, {
      secrets: account.secrets,
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
      account: account.name,
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
    // The URL's account, else the one the body names (an event of a connected account or seller).
    account: named ?? accountNamedByBody(deps, driver.name, normalized.columns.account) ?? undefined,
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
