import type { AppConfig } from "../../config/env";
import type { ProviderConfig } from "../../config/provider-config";
import type { ChargeSnapshot } from "../../canonical/charge-event";
import { observedChargeSchema } from "../../canonical/observed-charge";
import type { GatewayClients } from "../../http/gateway-clients";
import { accountAccess, notSet } from "../../gateway-accounts/account-access";
import { configAccounts, type AccountDirectory } from "../../gateway-accounts/account-directory";
import { DEFAULT_ACCOUNT } from "../../canonical/gateway-account";
import { isoToMicros, type EventTime } from "../../payments/state-machine";
import { findDriver, PROVIDER_NAMES, type ProviderName } from "../../providers/registry";
import type { NormalizedEvent, ProviderDriver } from "../../providers/types";

// The event-or-refetch decision: an event's own body says what its charge is, unless the body is only
// a notice or refetch is configured for its type; then the gateway's API says. The replay preview asks
// the same question without fetching.

export function eventTime(event: NormalizedEvent): EventTime | null {
  return event.occurredAt && event.precision ? { micros: isoToMicros(event.occurredAt), precision: event.precision } : null;
}

/** How long an event waiting for a missing API credential waits before it is looked at again. */
export const CREDENTIAL_RECHECK_SECONDS = 300;

/** A refetch that cannot authenticate: the event waits for the operator instead of failing with 401s. */
export class MissingCredentialError extends Error {
  override name = "MissingCredentialError";
  readonly retryAt = new Date(Date.now() + CREDENTIAL_RECHECK_SECONDS * 1000);
}

/** A charge's state as the worker observed it: from the event's body, or fetched from the gateway. */
export type ChargeObservation = { snapshot: ChargeSnapshot; at: EventTime | null; source: "event" | "refetch" | "reconcile" };

/**
 * The body of a derived event reconciliation stored (a charge state it read from the gateway's
 * authenticated API): applied as a refetch at the time it was seen, recorded as "reconcile".
 */
export function reconciledObservation(
  raw: Buffer,
): { chargeId: string; observedAt: string; observation: ChargeObservation } | { error: string } {
  let body: unknown;
  try {
    body = JSON.parse(raw.toString("utf8"));
  } catch {
    body = null;
  }
  const observed = observedChargeSchema.safeParse(body);
  if (!observed.success) return { error: `not an observed charge: ${observed.error.issues[0]?.message}` };
  const { resourceId, snapshot, observedAt } = observed.data;
  return {
    chargeId: resourceId,
    observedAt,
    observation: { snapshot, at: { micros: isoToMicros(observedAt), precision: "millisecond" }, source: "reconcile" },
  };
}

/**
 * The observation an event's own body gives, or null when the worker fetches the charge from the
 * gateway instead (the body is only a notice, or refetch is configured for this type).
 */
export function ownObservation(config: AppConfig, provider: ProviderName, event: NormalizedEvent): ChargeObservation | null {
  if (event.charge && !event.refetchRequired && !matchesEventType(config.providers[provider].refetchTypes, event.type)) {
    return { snapshot: event.charge, at: eventTime(event), source: "event" };
  }
  return null;
}

/**
 * An event type the driver does not map, about a charge, on a gateway configured to refetch it (the
 * weakly authenticated ones refetch every type): the gateway may have added a type, or documents more
 * than the driver knows, so its charge is looked at rather than the event settled unseen.
 */
export function refetchesUnmappedType(config: AppConfig, driver: ProviderDriver<ProviderName>, event: NormalizedEvent): boolean {
  return (
    event.charge === null &&
    event.resourceId !== null &&
    driver.refetch !== undefined &&
    matchesEventType(config.providers[driver.name].refetchTypes, event.type)
  );
}

/**
 * The state to apply: the event's own, or, where configured, the gateway's current one, read with the
 * credentials of the event's account (`account`, its gateway_account; accountAccess).
 */
export async function observeCharge(
  deps: { config: AppConfig; gateways: GatewayClients; accounts?: AccountDirectory },
  driver: ProviderDriver<ProviderName>,
  event: NormalizedEvent & { resourceId: string },
  account: string = DEFAULT_ACCOUNT,
): Promise<ChargeObservation> {
  const own = ownObservation(deps.config, driver.name, event);
  if (own) return own;
  const providerConfig = deps.config.providers[driver.name];
  if (!driver.refetch || !providerConfig.apiUrl) {
    throw new Error(
      `refetch is configured for ${driver.name} ${event.type}, but ${driver.name} has no API to fetch from (set ${driver.name.toUpperCase()}_API_URL)`,
    );
  }
  const access = accountAccess(deps.accounts ?? configAccounts(deps.config), driver, account, driver.accountOf?.(event.payload) ?? null);
  if ("unavailable" in access) throw new MissingCredentialError(`refetch can't read ${access.unavailable}`);
  if (access.missing.length > 0) {
    throw new MissingCredentialError(
      `refetch needs ${notSet(access.missing)}; waiting for it (a variable: set it and restart the worker; an account in the database: its change reaches the worker by itself)`,
    );
  }
  const client = deps.gateways(driver.name, access.credentials)!;
  // The fetch starts before any lock is taken; its start time is when the state was true.
  const fetchedAt = BigInt(Date.now()) * 1000n;
  const snapshot = await driver.refetch(event.resourceId, client.fetchJson, {
    credentials: access.credentials,
    settings: providerConfig.settings,
    eventType: event.type,
    ...(access.readAs ? { account: access.readAs } : {}),
  });
  return { snapshot, at: { micros: fetchedAt, precision: "millisecond" }, source: "refetch" };
}

/** Does `eventType` match one of the configured patterns (`*` matches any run of characters)? */
export function matchesEventType(patterns: readonly string[], eventType: string): boolean {
  return patterns.some((pattern) => {
    const regex = new RegExp(
      `^${pattern
        .split("*")
        .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*")}$`,
    );
    return regex.test(eventType);
  });
}

/** Does this provider ever refetch: refetch configured for some event types, or bodies that are notices only? */
function refetches(driver: ProviderDriver, providerConfig: ProviderConfig): boolean {
  return (
    driver.refetch !== undefined &&
    providerConfig.apiUrl !== undefined &&
    (driver.noticeOnly === true || providerConfig.refetchTypes.length > 0)
  );
}

/**
 * One line per enabled gateway that will refetch but lacks a credential for it, for the worker to print
 * once at start (its events wait instead of failing with 401s; see processEvent).
 */
export function missingCredentialWarnings(config: AppConfig): string[] {
  return PROVIDER_NAMES.flatMap((provider) => {
    const driver = findDriver(provider);
    const providerConfig = config.providers[provider];
    if (!driver || !providerConfig.enabled || !refetches(driver, providerConfig)) return [];
    const access = accountAccess(configAccounts(config), driver, DEFAULT_ACCOUNT);
    const missing = "missing" in access ? access.missing : [];
    if (missing.length === 0) return [];
    return [
      `refetch for ${provider} needs ${notSet(missing)}: ` +
        `${provider} events that need a refetch wait (rechecked every ${CREDENTIAL_RECHECK_SECONDS / 60} min, no attempt spent) until it is set and the worker restarted`,
    ];
  });
}
