import type { AppConfig } from "../../config/env";
import { credentialVariable, type ProviderConfig } from "../../config/provider-config";
import { findDriver, PROVIDER_NAMES, type ProviderName } from "../../providers/registry";
import { createGatewayClient, type GatewayClient } from "../../http/gateway-client";
import type { ProviderDriver } from "../../providers/types";

export type GatewayClients = (provider: ProviderName) => GatewayClient | undefined;

/** One outbound client per gateway with an API URL, created on first use and shared by the process. */
export function createGatewayClients(config: AppConfig, onCircuitOpen?: (provider: ProviderName) => void): GatewayClients {
  const clients = new Map<ProviderName, GatewayClient>();
  return (provider) => {
    const existing = clients.get(provider);
    if (existing) return existing;
    const { apiUrl, credentials } = config.providers[provider];
    if (!apiUrl) return undefined;
    const client = createGatewayClient(provider, {
      baseUrl: apiUrl,
      headers: findDriver(provider)?.apiAuth?.headers(credentials) ?? {},
      timeoutMs: config.refetch.timeoutMs,
      ratePerSecond: config.refetch.ratePerSecond,
      breakerFailures: config.refetch.breakerFailures,
      breakerCooldownMs: config.refetch.breakerCooldownSeconds * 1000,
      onCircuitOpen: onCircuitOpen && (() => onCircuitOpen(provider)),
    });
    clients.set(provider, client);
    return client;
  };
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

/** The variables a driver's API needs that this configuration lacks, e.g. ["ZOOP_MARKETPLACE_ID"]. */
export function missingCredentials(driver: ProviderDriver, providerConfig: ProviderConfig): string[] {
  return (driver.apiAuth?.needs ?? [])
    .filter((credential) => !providerConfig.credentials[credential])
    .map((credential) => credentialVariable(driver.name, credential));
}

/** "ASAAS_API_KEY, which is not set" / "ZOOP_API_KEY and ZOOP_MARKETPLACE_ID, which are not set". */
export function notSet(variables: string[]): string {
  return `${variables.join(" and ")}, which ${variables.length > 1 ? "are" : "is"} not set`;
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
    const missing = missingCredentials(driver, providerConfig);
    if (missing.length === 0) return [];
    return [
      `refetch for ${provider} needs ${notSet(missing)}: ` +
        `${provider} events that need a refetch wait (rechecked every ${CREDENTIAL_RECHECK_SECONDS / 60} min, no attempt spent) until it is set and the worker restarted`,
    ];
  });
}

/** How long an event waiting for a missing API credential waits before it is looked at again. */
export const CREDENTIAL_RECHECK_SECONDS = 300;
