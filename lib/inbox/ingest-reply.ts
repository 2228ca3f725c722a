import type { IngestOutcome } from "./ingest-event";

export type IngestReply = { status: number; body: { received: true; duplicate: boolean } | { error: string; code: string } };

/** The HTTP answer to a delivery, the same from the Next.js route and the lean ingest server. */
export function ingestReply(outcome: IngestOutcome, provider: string): IngestReply {
  switch (outcome.kind) {
    case "stored":
    case "duplicate":
      return { status: 200, body: { received: true, duplicate: outcome.duplicate } };
    case "rejected":
      return { status: 401, body: { error: `invalid signature: ${outcome.reason}`, code: "INVALID_SIGNATURE" } };
    case "not_configured":
      console.error(
        `[ingest] refusing ${outcome.provider} webhooks: no secret configured ` +
          `(set WEBHOOK_SECRET_${outcome.provider.toUpperCase()}); unsigned events are never accepted`,
      );
      return { status: 503, body: { error: `provider "${outcome.provider}" is not configured`, code: "NOT_CONFIGURED" } };
    case "unknown_provider":
      return { status: 404, body: unknownProvider(provider) };
  }
}

export function unknownProvider(provider: string): { error: string; code: string } {
  return { error: `unknown provider "${provider}"`, code: "NOT_FOUND" };
}
