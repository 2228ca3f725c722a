/** What a redacted personal value becomes, wherever it was stored (as Stripe's redaction jobs write it). */
export const REDACTED = "[redacted]";
