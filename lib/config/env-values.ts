import { z } from "zod";

// How a variable's text becomes a value, shared by the application's and the gateways' variables.

/** A comma-separated list; blanks dropped. */
export const csv = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? "")
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part.length > 0),
  );

export const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const timeZone = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine((zone) => {
      try {
        new Intl.DateTimeFormat("en-US", { timeZone: zone });
        return true;
      } catch {
        return false;
      }
    }, "must be an IANA time zone such as America/Sao_Paulo");
