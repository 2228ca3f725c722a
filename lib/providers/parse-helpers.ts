import type { z } from "zod";
import type { ChargeStatus } from "../canonical/charge-event";
import { normalizedEventSchema, ParseError, type NormalizedEvent } from "./types";

/** The body as JSON, or a ParseError naming what is wrong. */
export function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch (error) {
    throw new ParseError(`body is not valid JSON: ${(error as Error).message}`);
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

/** A decimal amount in major units (10.5, "10.50") in minor units (1050). */
export function toMinorUnits(amount: number | string): number {
  return Math.round(Number(amount) * 100);
}

/** Which refund state a charge is in: partial while less than its amount went back; full when unknown. */
export function refundStatus(amount: number | undefined, amountRefunded: number | undefined): ChargeStatus {
  return amount !== undefined && amountRefunded !== undefined && amountRefunded < amount ? "partially_refunded" : "refunded";
}
