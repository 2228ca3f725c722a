import { timingSafeEqual } from "node:crypto";

/** Constant-time equality of two strings or buffers (a length mismatch returns early: lengths aren't secret). */
export function safeEqual(a: string | Buffer, b: string | Buffer): boolean {
  const left = typeof a === "string" ? Buffer.from(a) : a;
  const right = typeof b === "string" ? Buffer.from(b) : b;
  return left.length === right.length && timingSafeEqual(left, right);
}
