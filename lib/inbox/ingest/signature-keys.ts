import type { ProviderConfig } from "../../config/provider-config";
import { createJwksCache, type PublicKeySource } from "../../http/jwks-cache";
import type { ProviderDriver, VerifyContext } from "../../providers/types";

// Per-process key sets for gateways that sign with published keys (a driver's
// verification.publishedKeys), shared by every request so a key set is fetched once per TTL, not once
// per webhook.

const JWKS_TIMEOUT_MS = 5_000;
const JWKS_MAX_BYTES = 64 * 1024;
const JWKS_MIN_REFETCH_INTERVAL_MS = 30_000;

const keySources = new Map<string, PublicKeySource>();

function jwks(url: string, ttlSeconds: number): PublicKeySource {
  const key = `${url} ${ttlSeconds}`;
  let source = keySources.get(key);
  if (!source) {
    source = createJwksCache({
      url,
      ttlMs: ttlSeconds * 1000,
      timeoutMs: JWKS_TIMEOUT_MS,
      maxBytes: JWKS_MAX_BYTES,
      minRefetchIntervalMs: JWKS_MIN_REFETCH_INTERVAL_MS,
    });
    keySources.set(key, source);
  }
  return source;
}

/** What a driver's verification needs beyond its secrets, as it declares them: its settings, and its published keys. */
export function verificationNeeds(driver: ProviderDriver, providerConfig: ProviderConfig): Pick<VerifyContext, "publicKeys" | "settings"> {
  const published = driver.verification?.publishedKeys?.(providerConfig.settings);
  return { settings: providerConfig.settings, ...(published ? { publicKeys: jwks(published.url, published.ttlSeconds) } : {}) };
}
