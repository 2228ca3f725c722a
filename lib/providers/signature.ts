import { sha256Hex } from "../crypto/digest";

/** Is `timestamp` (Unix seconds) within `toleranceSeconds` of now, in either direction? */
export function withinTolerance(timestamp: number, nowSeconds: number, toleranceSeconds: number): boolean {
  return Math.abs(nowSeconds - timestamp) <= toleranceSeconds;
}

export function timestampReason(timestamp: number, nowSeconds: number): string {
  return timestamp < nowSeconds
    ? `timestamp is ${nowSeconds - timestamp}s old, outside the tolerance`
    : `timestamp is ${timestamp - nowSeconds}s in the future, outside the tolerance`;
}

/**
 * The idempotency key for gateways that send no event id: a hash of what identifies the event
 * (never of the whole body, which gateways may re-serialize differently on a resend).
 */
export function deriveEventKey(resourceId: string, type: string, status: string, occurredAt: string): string {
  return `derived:${sha256Hex([resourceId, type, status, occurredAt].join("|"))}`;
}

/** The key of a signed body no driver could parse: the raw bytes are all that identify it. */
export function rawBodyKey(raw: Buffer): string {
  return `raw:${sha256Hex(raw)}`;
}
