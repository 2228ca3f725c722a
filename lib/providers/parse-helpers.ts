import type { z } from "zod";
import type { ChargeStatus } from "../canonical/charge-event";
import type { ChargeSnapshot } from "../canonical/charge-event";
import { minorUnitDigits } from "../canonical/money";
import { normalizedEventSchema, ParseError, type ListedItem, type NormalizedEvent } from "./types";

/** Deeper than any gateway's payload; PostgreSQL's jsonb and JSON.stringify overflow long before 100k. */
export const MAX_JSON_DEPTH = 64;

/**
 * Does the JSON text nest arrays/objects deeper than `max`? A byte scan (brackets inside strings
 * don't count), so a hostile body is refused before anything recursive touches it.
 */
export function jsonDepthExceeds(raw: Buffer, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i];
    if (inString) {
      if (byte === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > max) return true;
    } else if (byte === 0x5d || byte === 0x7d) depth--;
  }
  return false;
}

/** The body as JSON, or a ParseError naming what is wrong. */
export function parseJson(raw: Buffer): unknown {
  if (jsonDepthExceeds(raw, MAX_JSON_DEPTH)) throw new ParseError(`body nests deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch (error) {
    // V8's message quotes the body; the reason names only where it broke.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new ParseError(`body is not valid JSON${position === undefined ? "" : ` (at character ${position})`}`);
  }
}

/** Validates what a driver extracted; anything out of contract (too long an id, bad time) is a ParseError. */
export function toNormalizedEvent(fields: z.input<typeof normalizedEventSchema>): NormalizedEvent {
  const result = normalizedEventSchema.safeParse(fields);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ParseError(`normalized event invalid: ${issue?.path.join(".")} ${issue?.message}`);
  }
  return { ...result.data, payload: fields.payload };
}

/** `value` read through `schema`; a mismatch is a ParseError that starts with `what` and names the first issue. */
export function parseWith<Schema extends z.ZodType>(schema: Schema, value: unknown, what: string): z.output<Schema> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ParseError(`${what}: ${issue?.path.join(".")} ${issue?.message}`);
  }
  return result.data;
}

/**
 * A decimal amount in the currency's unit (10.5 BRL, "1500" CLP) in its minor units (1050, 1500); a
 * currency the gateway leaves out is taken to have cents, as most do.
 */
export function toMinorUnits(amount: number | string, currency: string | undefined): number {
  return Math.round(Number(amount) * 10 ** (currency ? minorUnitDigits(currency) : 2));
}

/** Which refund state a charge is in: partial while less than its amount went back; full when unknown. */
export function refundStatus(amount: number | undefined, amountRefunded: number | undefined): ChargeStatus {
  return amount !== undefined && amountRefunded !== undefined && amountRefunded < amount ? "partially_refunded" : "refunded";
}

/**
 * One object of a gateway's list API as a listed resource: read through `schema` and mapped by the
 * driver's own refetch mapping; an object it can't read is kept as unreadable (the rest of the page goes on).
 */
export function listedResource<Schema extends z.ZodType<{ id: string | number; status?: string }>>(
  schema: Schema,
  value: unknown,
  read: (resource: z.output<Schema>) => { snapshot: ChargeSnapshot; updatedAt: string | null },
): ListedItem {
  const id = (value as { id?: unknown } | null)?.id;
  try {
    const resource = parseWith(schema, value, "listed object");
    const { snapshot, updatedAt } = read(resource);
    return { kind: "resource", resourceId: String(resource.id), gatewayStatus: resource.status ?? "", updatedAt, snapshot, body: value };
  } catch (error) {
    if (!(error instanceof ParseError)) throw error;
    return { kind: "unreadable", resourceId: typeof id === "string" || typeof id === "number" ? String(id) : null, error: error.message };
  }
}
