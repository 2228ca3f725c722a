import { z } from "zod";
import { isStorableText } from "./storable-text";

// The shapes outside input must have before it reaches a query: a bad id, date, cursor or a NUL in
// text is a 400 or a friendly message at the edge, never a database error (a 500 quoting SQL text).

/** Text a query may carry: no NUL, no lone surrogate. */
export const storableTextSchema = z.string().refine(isStorableText, "must not contain NUL characters or broken Unicode");

/** A row id in a URL: decimal digits within JavaScript's safe integers (bigint ids never get near). */
export const rowIdSchema = z
  .string()
  .regex(/^[1-9]\d{0,14}$/, "must be a positive whole number")
  .transform(Number);

/** A row id from a URL segment or parameter, or null when it is not one. */
export function parseRowId(text: string | undefined): number | null {
  const result = rowIdSchema.safeParse(text);
  return result.success ? result.data : null;
}

/** A date in a filter: anything Date understands, within years 1..9999 (what timestamptz and people use). */
export const dateParamSchema = z.coerce
  .date({ error: "must be a date such as 2026-12-01 or 2026-12-01T10:00:00Z" })
  .refine((date) => date.getUTCFullYear() >= 1 && date.getUTCFullYear() <= 9999, "must be between the years 1 and 9999");

/**
 * A comma-separated list of known values (`status=paid,refunded`). An empty value ("provider=") is
 * refused rather than read as "none of them": a feed reader whose filter matched nothing would be
 * moved past every change and lose them.
 */
export const commaListSchema = <T extends string>(values: readonly T[], name: string) =>
  z
    .string()
    .transform((value) => value.split(",").filter(Boolean))
    .pipe(z.array(z.enum(values)).min(1, `${name} needs at least one value (leave it out for all)`).max(values.length));
