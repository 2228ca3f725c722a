import type { ZodError } from "zod";

/** One error type for the edges: a code, a message safe to show, and the HTTP status it maps to. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  NOT_CONFIGURED: 503,
  UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  override name = "AppError";
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** A zod error as one readable line per problem ("field: message"). */
export function describeZodError(error: ZodError, separator = "; "): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "input"}: ${issue.message}`).join(separator);
}
