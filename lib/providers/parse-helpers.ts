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
export function toNormalizedEvent(fields: NormalizedEvent): NormalizedEvent {
  const result = normalizedEventSchema.safeParse(fields);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new ParseError(`normalized event invalid: ${issue?.path.join(".")} ${issue?.message}`);
  }
  return { ...result.data, payload: fields.payload };
}
