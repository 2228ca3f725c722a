import { hasValidApiToken } from "@/lib/auth/api-token";
import { can } from "@/lib/auth/permissions";
import { AppError } from "@/lib/errors/app-error";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { currentUser } from "./session";

/** Host-application endpoints take a bearer token from PAYMENTS_API_TOKENS. */
export function requireApiToken(request: Request): void {
  const { config } = webRuntime();
  if (config.paymentsApiTokens.length === 0) {
    throw new AppError("NOT_CONFIGURED", "no API tokens are configured (set PAYMENTS_API_TOKENS)");
  }
  if (!hasValidApiToken(request.headers.get("authorization"), config.paymentsApiTokens)) {
    throw new AppError("UNAUTHORIZED", "missing or invalid bearer token");
  }
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
  return user !== null && can(user.role, "events.read");
}
