import { randomUUID } from "node:crypto";
import type { Logger } from "../../observability/logger";
import { recordIngest } from "../../observability/metrics";
import type { IngestOutcome } from "./ingest-event";

export type IngestReply = {
  status: number;
  body: { received: true; duplicate: boolean } | { error: string; code: string };
  headers?: Record<string, string>;
};

/** How long a disabled account's gateway is asked to wait before resending. */
const DISABLED_RETRY_AFTER_SECONDS = 300;

/** The HTTP answer to a webhook, the same from the Next.js route and the lean ingest server. */
export function ingestReply(outcome: IngestOutcome, provider: string): IngestReply {
  switch (outcome.kind) {
    case "stored":
    case "duplicate":
      return { status: 200, body: { received: true, duplicate: outcome.duplicate } };
    case "rejected":
      return { status: 401, body: { error: `invalid signature: ${outcome.reason}`, code: "INVALID_SIGNATURE" } };
    case "unverifiable":
      // Our side can't check the signature right now: 503 makes the gateway resend later, and nothing
      // unverified is stored or acknowledged.
      return {
        status: 503,
        body: { error: "the signature cannot be verified right now; retry later", code: "SIGNATURE_UNVERIFIABLE" },
        headers: { "retry-after": "60" },
      };
    case "not_configured":
      return {
        status: 503,
        body: {
          error: outcome.account
            ? `account "${outcome.account}" of provider "${outcome.provider}" has no webhook secret`
            : `provider "${outcome.provider}" is not configured`,
          code: "NOT_CONFIGURED",
        },
      };
    case "unknown_account":
      // Nothing to verify with: a typo in the URL configured at the gateway, or an account removed.
      return {
        status: 404,
        body: { error: `unknown account "${outcome.account}" of provider "${outcome.provider}"`, code: "UNKNOWN_ACCOUNT" },
      };
    case "account_unavailable":
      // Refused for now, nothing stored: the gateway keeps resending (for days, or until its queue
      // pauses and keeps them) and the deliveries arrive once the account is enabled again.
      return outcome.reason === "disabled"
        ? {
            status: 503,
            body: {
              error: `account "${outcome.account}" of provider "${outcome.provider}" is disabled; retry later`,
              code: "ACCOUNT_DISABLED",
            },
            headers: { "retry-after": String(DISABLED_RETRY_AFTER_SECONDS) },
          }
        : {
            status: 503,
            body: {
              error: `account "${outcome.account}" of provider "${outcome.provider}" can't be read right now; retry later`,
              code: "ACCOUNT_UNREADABLE",
            },
            headers: { "retry-after": "60" },
          };
    case "unknown_provider":
      return { status: 404, body: unknownProvider(provider) };
  }
}

export function unknownProvider(provider: string): { error: string; code: string } {
  return { error: `unknown provider "${provider}"`, code: "NOT_FOUND" };
}

/** Counts a received webhook's outcome and logs one line for it (never its body), from either server. */
export function recordWebhookReceived(log: Logger, provider: string, outcome: IngestOutcome, seconds: number, bytes: number): void {
  if (outcome.kind === "unknown_provider") return;
  const result = outcome.kind === "stored" && outcome.status === "failed" ? "stored_failed" : outcome.kind;
  recordIngest(provider, result, seconds);
  const inboxId = outcome.kind === "stored" ? outcome.inboxId : undefined;
  const reason =
    outcome.kind === "rejected" || outcome.kind === "unverifiable" || outcome.kind === "account_unavailable" ? outcome.reason : undefined;
  const account = "account" in outcome ? outcome.account : undefined;
  log[result === "stored" || result === "duplicate" ? "info" : "warn"](
    { result, inboxId, account, reason, ms: Math.round(seconds * 1000), bytes },
    "webhook answered",
  );
  if (outcome.kind === "not_configured") {
    const what = outcome.account ? `account "${outcome.account}" webhooks` : "webhooks";
    log.error(`refusing ${outcome.provider} ${what}: it is not enabled (${outcome.enableWith}); unsigned events are never accepted`);
  }
}

/** A proxy's or gateway's request id is kept when it looks like one; otherwise each webhook gets its own. */
export function webhookRequestId(given: string | null | undefined): string {
  return given && /^[\w.:-]{1,100}$/.test(given) ? given : randomUUID();
}
