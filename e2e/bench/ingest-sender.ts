import { ingestEvent, type IngestDeps } from "@/lib/inbox/ingest/ingest-event";
import type { Sender } from "../simulator/deliver";

/** A sender that stores each delivery in this process, through the inbox's own ingest (no HTTP): a bench's backlog. */
export function inProcessSender(deps: IngestDeps): Sender {
  return async (delivery) => {
    const outcome = await ingestEvent(deps, {
      provider: delivery.provider,
      rawBody: Buffer.from(delivery.body),
      headers: delivery.headers,
    });
    return { status: outcome.kind === "stored" ? 200 : 500 };
  };
}
