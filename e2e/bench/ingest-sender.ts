import { ingestEvent, type IngestDeps } from "@/lib/inbox/ingest/ingest-event";
import type { Sender } from "../simulator/send-webhooks";

/** A sender that stores each webhook in this process, through the inbox's own ingest (no HTTP): a bench's backlog. */
export function inProcessSender(deps: IngestDeps): Sender {
  return async (webhook) => {
    const outcome = await ingestEvent(deps, {
      provider: webhook.provider,
      rawBody: Buffer.from(webhook.body),
      headers: webhook.headers,
    });
    return { status: outcome.kind === "stored" ? 200 : 500 };
  };
}
