import { NextResponse } from "next/server";
import { ZodError } from "zod";
import { AppError, describeZodError } from "@/lib/http/app-error";
import { logger } from "@/lib/observability/logger";

export function errorResponse(status: number, error: string, code?: string): NextResponse {
  return NextResponse.json(code ? { error, code } : { error }, { status });
}

/**
 * Wraps a route handler so every error has one JSON shape: AppError -> its status, ZodError -> 400,
 * anything else -> 500 with the details in the log only.
 */
export function withErrors<Args extends unknown[]>(
  handler: (...args: Args) => Promise<Response>,
): (...args: Args) => Promise<Response> {
  return async (...args) => {
    try {
      return await handler(...args);
    } catch (error) {
      if (error instanceof AppError) return errorResponse(error.status, error.message, error.code);
      if (error instanceof ZodError) {
        return errorResponse(400, describeZodError(error), "BAD_REQUEST");
      }
      logger("http").error({ err: error }, "unhandled error");
      return errorResponse(500, "internal error");
    }
  };
}
