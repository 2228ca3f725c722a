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

function errorCode(error: unknown): string | undefined {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

/**
 * The AppError an error means at the edge, or null for a real fault: a unique key already taken is
 * a conflict (PostgreSQL 23505, Prisma P2002), input the database refused as data is a bad request
 * (class 22: bad number, date, encoding). The database's own text is never passed on.
 */
export function asAppError(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  const code = errorCode(error);
  if (code === "23505" || code === "P2002") return new AppError("CONFLICT", "this already exists");
  if (code?.startsWith("22")) return new AppError("BAD_REQUEST", "the request holds a value the database can't take");
  return null;
}

/**
 * An unexpected error as a log line: its class, code and stack frames, never its message text,
 * which for database and JSON errors quotes the payload (a jsonb error's context is a snippet of it).
 */
export function errorForLog(error: unknown): string {
  if (!(error instanceof Error)) return `non-error thrown (${typeof error})`;
  const code = errorCode(error);
  const frames = (error.stack ?? "")
    .split("\n")
    .filter((line) => line.trimStart().startsWith("at "))
    .slice(0, 8);
  return [`${error.name}${code ? ` (code ${code})` : ""}`, ...frames].join("\n");
}
