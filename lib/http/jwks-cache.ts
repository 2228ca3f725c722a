import { z } from "zod";
import { readBodyWithLimit } from "../request/read-body";

/** The published keys could not be had (outage, timeout, oversized or malformed answer). */
export class KeysUnavailableError extends Error {
  override name = "KeysUnavailableError";
}

export type JwksCacheOptions = {
  url: string;
  /** A key set younger than this is used without asking again. */
  ttlMs: number;
  timeoutMs: number;
  /** A key set larger than this is refused (a JWKS is a few KiB). */
  maxBytes: number;
  /** At most one fetch per this interval, whatever asks: an unknown `kid` can't make us hammer the URL. */
  minRefetchIntervalMs: number;
  now?: () => number;
};

export type PublicKeySource = (kid: string) => Promise<JsonWebKey | null>;

const jwksSchema = z.object({ keys: z.array(z.looseObject({ kid: z.string().optional() })) });

/**
 * Public keys from a JWKS URL, cached for `ttlMs` and fetched again early when a `kid` is unknown
 * (the sender rotated), at most once per `minRefetchIntervalMs`; concurrent lookups share one fetch.
 * Answers null for a kid that a key set fetched just now doesn't have, and throws KeysUnavailableError
 * when it can't tell (outage, or an unknown kid within the interval): never a reason to accept anything.
 */
export function createJwksCache(options: JwksCacheOptions): PublicKeySource {
  const now = options.now ?? Date.now;
  let keys: Map<string, JsonWebKey> | null = null;
  let fetchedAt = -Infinity;
  let attemptedAt = -Infinity;
  let lastError: Error | null = null;
  let inFlight: Promise<void> | null = null;

  async function download(): Promise<Map<string, JsonWebKey>> {
    let response: Response;
    try {
      response = await fetch(options.url, { headers: { accept: "application/json" }, signal: AbortSignal.timeout(options.timeoutMs) });
    } catch (error) {
      throw new KeysUnavailableError(`key set ${options.url} could not be fetched: ${(error as Error).message}`);
    }
    if (!response.ok) throw new KeysUnavailableError(`key set ${options.url} answered ${response.status}`);
    let raw: Buffer;
    try {
      raw = await readBodyWithLimit(response, options.maxBytes);
    } catch (error) {
      throw new KeysUnavailableError(`key set ${options.url} could not be read: ${(error as Error).message}`);
    }
    let parsed;
    try {
      parsed = jwksSchema.safeParse(JSON.parse(raw.toString("utf8")));
    } catch {
      parsed = null;
    }
    if (!parsed?.success) throw new KeysUnavailableError(`key set ${options.url} is not a JWKS`);
    return new Map(parsed.data.keys.filter((key) => key.kid).map((key) => [key.kid!, key as JsonWebKey]));
  }

  function refresh(): Promise<void> {
    inFlight ??= (async () => {
      attemptedAt = now();
      try {
        keys = await download();
        fetchedAt = now();
        lastError = null;
      } catch (error) {
        lastError = error as Error;
      } finally {
        inFlight = null;
      }
    })();
    return inFlight;
  }

  return async (kid) => {
    const fresh = keys !== null && now() - fetchedAt < options.ttlMs;
    if (fresh && keys!.has(kid)) return keys!.get(kid)!;
    const asked = inFlight !== null || now() - attemptedAt >= options.minRefetchIntervalMs;
    if (asked) await (inFlight ?? refresh());
    // A stale key set still answers during an outage: keys are published ahead and retired slowly.
    if (keys?.has(kid)) return keys.get(kid)!;
    if (lastError) throw lastError;
    // Only a key set fetched just now may say a kid doesn't exist (then the signature is refused);
    // within the interval an unknown kid may be a fresh rotation: unverifiable for now, not forged.
    if (!asked || keys === null) {
      throw new KeysUnavailableError(
        `kid not in the key set fetched from ${options.url}, which is asked again at most every ${options.minRefetchIntervalMs / 1000}s`,
      );
    }
    return null;
  };
}
