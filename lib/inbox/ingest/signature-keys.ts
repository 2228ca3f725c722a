import type { AppConfig } from "../../config/env";
import type { ProviderName } from "../../providers/registry";
import { createJwksCache, type PublicKeySource } from "../../http/jwks-cache";
import type { VerifyContext } from "../../providers/types";

// Per-process key sets for gateways that sign with published keys (Pagar.me's JWKS), shared by every
// request so a key set is fetched once per TTL, not once per webhook.

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

/** What a driver needs beyond secrets to verify: accepted schemes and published keys, where it has them. */
export function signatureOptions(provider: ProviderName, config: AppConfig): Pick<VerifyContext, "publicKeys" | "schemes"> {
  if (provider !== "pagarme") return {};
  return { schemes: config.pagarme.signatures, publicKeys: jwks(config.pagarme.jwksUrl, config.pagarme.jwksTtlSeconds) };
}
