import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";

/** A new destination secret: `whsec_` and 24 random bytes in base64 (the Standard Webhooks form). */
export function generateSecret(): string {
  return `whsec_${randomBytes(24).toString("base64")}`;
}

/**
 * Standard Webhooks headers for one message, signed by every given secret (during a rotation the
 * old and the new: a receiver holding either verifies). Signed by the official library, the same one
 * the host verifies with.
 */
export function signedHeaders(messageId: string, body: string, secrets: readonly string[], at = new Date()): Record<string, string> {
  // The library signs with whole seconds; the timestamp header must carry the same second.
  const timestamp = new Date(Math.floor(at.getTime() / 1000) * 1000);
  return {
    "content-type": "application/json",
    "webhook-id": messageId,
    "webhook-timestamp": String(timestamp.getTime() / 1000),
    "webhook-signature": secrets.map((secret) => new Webhook(secret).sign(messageId, timestamp, body)).join(" "),
  };
}
