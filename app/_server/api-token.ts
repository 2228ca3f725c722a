import { hasValidApiToken, matchApiToken } from "@/lib/auth/api-token";
import type { ApiToken } from "@/lib/config/api-tokens";
import { AppError } from "@/lib/errors/app-error";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { currentUser, mayUse } from "./session";

/**
 * Host-application endpoints take a bearer token from PAYMENTS_API_TOKENS; returns it, with the
 * gateways it may read (see lib/auth/api-token's scopes).
 */
export function requireApiToken(request: Request): ApiToken {
  const { config } = webRuntime();
  if (config.paymentsApiTokens.length === 0) {
    throw new AppError("NOT_CONFIGURED", "no API tokens are configured (set PAYMENTS_API_TOKENS)");
  }
  const token = matchApiToken(request.headers.get("authorization"), config.paymentsApiTokens);
  if (!token) throw new AppError("UNAUTHORIZED", "missing or invalid bearer token");
  return token;
}

/**
 * May this request read health details (counts, errors)? A monitoring token from HEALTH_TOKENS, or a
 * console session whose role reads events (the overview shows the same numbers).
 */
export async function mayReadHealthDetails(request: Request): Promise<boolean> {
  const { config } = webRuntime();
  if (config.healthTokens.length > 0 && hasValidApiToken(request.headers.get("authorization"), config.healthTokens)) return true;
  // Probes carry no session cookie: they get their answer without a session lookup.
  if (!/next-auth\.session-token/.test(request.headers.get("cookie") ?? "")) return false;
  const user = await currentUser();
  return user !== null && mayUse(user, "events.read");
}
