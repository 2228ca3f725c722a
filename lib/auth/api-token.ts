import { safeEqual } from "../crypto/safe-equal";

/** Does the `Authorization: Bearer <token>` header carry one of the configured tokens? */
export function hasValidApiToken(authorization: string | null, tokens: readonly string[]): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(authorization ?? "");
  if (!match) return false;
  const presented = match[1]!.trim();
  // Every token is compared, so timing doesn't reveal which one (or whether any) was close.
  return tokens.reduce((found, token) => safeEqual(presented, token) || found, false);
}
