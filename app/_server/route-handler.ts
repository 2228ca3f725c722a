import { NextResponse } from "next/server";
import { ZodError } from "zod";
import { isDatabaseUnavailable } from "@/lib/db/pool";
import { asAppError, describeZodError, errorForLog } from "@/lib/errors/app-error";
import { logger } from "@/lib/observability/logger";

/** Seconds a client is asked to wait before retrying while the database is unreachable. */
const RETRY_AFTER_SECONDS = 5;

export function errorResponse(status: number, error: string, code?: string): NextResponse {
  return NextResponse.json(code ? { error, code } : { error }, { status });
}

/**
 * Wraps a route handler so every error has one JSON shape: AppError (and the database errors
 * asAppError knows) -> its status, ZodError -> 400, database unreachable -> 503 with Retry-After (a
 * gateway resends; nothing was acknowledged), anything else -> 500, its class in the log only. Every
 * answer is `Cache-Control: no-store` unless the handler says otherwise: they carry payloads, payments
 * and customers, which no browser or proxy cache should keep.
 */
export function withErrors<Args extends unknown[]>(handler: (...args: Args) => Promise<Response>): (...args: Args) => Promise<Response> {
  return async (...args) => noStore(await answer(handler, args));
}

function noStore(response: Response): Response {
  if (!response.headers.has("cache-control")) response.headers.set("cache-control", "no-store");
  return response;
}

async function answer<Args extends unknown[]>(handler: (...args: Args) => Promise<Response>, args: Args): Promise<Response> {
  try {
    return await handler(...args);
  } catch (error) {
    const known = asAppError(error);
    if (known) return errorResponse(known.status, known.message, known.code);
    if (error instanceof ZodError) {
      return errorResponse(400, describeZodError(error), "BAD_REQUEST");
    }
    if (isDatabaseUnavailable(error)) {
      logger("http").error({ error: errorForLog(error) }, "database unavailable");
      const response = errorResponse(503, "database unavailable, retry later", "DATABASE_UNAVAILABLE");
      response.headers.set("retry-after", String(RETRY_AFTER_SECONDS));
      return response;
    }
    logger("http").error({ error: errorForLog(error) }, "unhandled error");
    return errorResponse(500, "internal error");
  }
}
