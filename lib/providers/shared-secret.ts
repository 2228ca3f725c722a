import { safeEqual } from "../crypto/safe-equal";
import type { VerifyResult } from "./types";

// Gateways that sign nothing (Asaas, Zoop) or may not (Pagar.me v5) are authenticated by a fixed
// credential the operator configures on both sides: a token, or HTTP Basic Auth "user:pass".

/** The "user:pass" an `Authorization: Basic <base64>` header carries, or null when it carries none. */
export function basicCredentials(authorization: string | undefined): string | null {
  const match = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(authorization ?? "");
  return match?.[1] ? Buffer.from(match[1], "base64").toString("utf8") : null;
}

/** Accepts `presented` when it equals any configured secret (rotation), compared in constant time. */
export function verifySharedSecret(presented: string, secrets: readonly string[], what: string): VerifyResult {
  return secrets.some((secret) => safeEqual(presented, secret))
    ? { ok: true }
    : { ok: false, reason: `${what} matches no configured secret` };
}
