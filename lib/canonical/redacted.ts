/** What a redacted personal value becomes, wherever it was stored. */
export const REDACTED = "[redacted]";
