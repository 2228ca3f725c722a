import { hasValidApiToken } from "@/lib/auth/api-token";
import { AppError } from "@/lib/http/app-error";
import { webRuntime } from "@/lib/runtime/web-runtime";

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
