import { createHash } from "node:crypto";
import type { AppConfig } from "../config/env";
import { findDriver, type ProviderName } from "../providers/registry";
import type { ApiCredentials } from "../providers/types";
import { createGatewayClient, type GatewayClient } from "./gateway-client";

/**
 * The outbound client of a gateway's API, authenticated with `credentials` (one account's: the
 * default account's when left out); undefined when the gateway has no API URL.
 */
export type GatewayClients = (provider: ProviderName, credentials?: ApiCredentials) => GatewayClient | undefined;

// Clients of other credentials than the default's, past which the map starts again: a key rotated
// every day on 10,000 accounts would otherwise keep every old client. One is cheap to make again.
const MAX_ACCOUNT_CLIENTS = 50_000;

/**
 * One client per gateway with an API URL, created on first use and shared by the process: its rate
 * limiter and circuit breaker are the gateway's, whichever account a request authenticates as (the
 * gateway's API is down for all its accounts at once). Each set of credentials gets its own
 * authentication over them, keyed by a hash of the headers it makes, never by the credentials.
 */
export function createGatewayClients(config: AppConfig, onCircuitOpen?: (provider: ProviderName) => void): GatewayClients {
  const clients = new Map<ProviderName, GatewayClient>();
  const byCredentials = new Map<string, GatewayClient>();
  const gatewayClient = (provider: ProviderName) => {
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
  return (provider, credentials) => {
    const client = gatewayClient(provider);
    if (!client || !credentials || credentials === config.providers[provider].credentials) return client;
    const headers = findDriver(provider)?.apiAuth?.headers(credentials) ?? {};
    const key = `${provider} ${createHash("sha256")
      .update(JSON.stringify(Object.entries(headers).sort()))
      .digest("hex")}`;
    let authenticated = byCredentials.get(key);
    if (!authenticated) {
      if (byCredentials.size >= MAX_ACCOUNT_CLIENTS) byCredentials.clear();
      authenticated = client.authenticatedWith(headers);
      byCredentials.set(key, authenticated);
    }
    return authenticated;
  };
}
