import type { ApiToken } from "../config/api-tokens";
import { safeEqual } from "../crypto/safe-equal";
import { AppError } from "../errors/app-error";

const presentedToken = (authorization: string | null) => /^Bearer\s+(.+)$/i.exec(authorization ?? "")?.[1]!.trim() ?? null;

/** The configured token the `Authorization: Bearer <token>` header carries, or null. */
export function matchApiToken(authorization: string | null, tokens: readonly ApiToken[]): ApiToken | null {
  const presented = presentedToken(authorization);
  if (presented === null) return null;
  // Every token is compared, so timing doesn't reveal which one (or whether any) was close.
  return tokens.reduce<ApiToken | null>((found, token) => (safeEqual(presented, token.token) ? token : found), null);
}

/** Does the header carry one of these (unscoped) tokens? */
export function hasValidApiToken(authorization: string | null, tokens: readonly string[]): boolean {
  return (
    matchApiToken(
      authorization,
      tokens.map((token) => ({ token, providers: null })),
    ) !== null
  );
}

/**
 * The gateways a request with this token reads: those it asked for (undefined: all), which must lie
 * within the token's scope (403 otherwise); a scoped token asking for none gets its scope.
 */
export function providersFor<P extends string>(token: ApiToken, asked: P[] | undefined): P[] | undefined {
  const scope: readonly string[] | null = token.providers;
  if (!scope) return asked;
  const outside = (asked ?? []).filter((provider) => !scope.includes(provider));
  if (outside.length > 0) throw new AppError("FORBIDDEN", `this token does not read ${outside.join(", ")}`);
  // A scope holds gateway names, which is what a feed's provider filter is.
  return asked ?? ([...scope] as P[]);
}
