import type { AppConfig } from "../config/env";
import { credentialVariable, type ProviderConfig } from "../config/provider-config";
import { findDriver, type ProviderName } from "../providers/registry";
import type { ProviderDriver } from "../providers/types";
import { createGatewayClient, type GatewayClient } from "./gateway-client";

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
      maxResponseBytes: config.refetch.maxResponseBytes,
      ratePerSecond: config.refetch.ratePerSecond,
      breakerFailures: config.refetch.breakerFailures,
      breakerCooldownMs: config.refetch.breakerCooldownSeconds * 1000,
      onCircuitOpen: onCircuitOpen && (() => onCircuitOpen(provider)),
    });
    clients.set(provider, client);
    return client;
  };
}

/** The variables a driver's API needs that this configuration lacks, e.g. ["<PROVIDER>_MARKETPLACE_ID"]. */
export function missingCredentials(driver: ProviderDriver, providerConfig: ProviderConfig): string[] {
  return (driver.apiAuth?.needs ?? [])
    .filter((credential) => !providerConfig.credentials[credential])
    .map((credential) => credentialVariable(driver.name, credential));
}

/** "<P>_API_KEY, which is not set" / "<P>_API_KEY and <P>_MARKETPLACE_ID, which are not set". */
export function notSet(variables: string[]): string {
  return `${variables.join(" and ")}, which ${variables.length > 1 ? "are" : "is"} not set`;
}
