import { createHash, createHmac, timingSafeEqual } from "node:crypto";

/** Constant-time equality of two strings or buffers (a length mismatch returns early: lengths aren't secret). */
export function safeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const left = typeof a === "string" ? Buffer.from(a) : a;
  const right = typeof b === "string" ? Buffer.from(b) : b;
  return left.length === right.length && timingSafeEqual(left, right);
}

export function hmac(algorithm: "sha1" | "sha256", key: string | Buffer, ...parts: (string | Buffer)[]): Buffer {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

export function sha256Hex(...parts: (string | Buffer)[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex");
}

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
