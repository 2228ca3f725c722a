import type { AppConfig } from "../config/env";
import type { ProviderName } from "../config/provider-names";
import { createGatewayClient, type GatewayClient } from "../http/gateway-client";

export type GatewayClients = (provider: ProviderName) => GatewayClient | undefined;

/** One outbound client per gateway with an API URL, created on first use and shared by the process. */
export function createGatewayClients(config: AppConfig, onCircuitOpen?: (provider: ProviderName) => void): GatewayClients {
  const clients = new Map<ProviderName, GatewayClient>();
  return (provider) => {
    const existing = clients.get(provider);
    if (existing) return existing;
    const { apiUrl, apiKey } = config.providers[provider];
    if (!apiUrl) return undefined;
    const client = createGatewayClient(provider, {
      baseUrl: apiUrl,
      apiKey,
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
    const regex = new RegExp(`^${pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`);
    return regex.test(eventType);
  });
}
