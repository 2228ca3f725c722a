import type { AppConfig } from "../../config/env";
import { logger } from "../../observability/logger";
import { findDriver } from "../../providers/registry";
import type { HeaderMap } from "../../providers/types";
import { BodyTooLargeError } from "../../request/read-body";
import { ingestEvent, type IngestDeps } from "./ingest-event";
import { ingestReply, recordWebhookReceived, unknownProvider, webhookRequestId } from "./ingest-reply";

// The reception of one webhook, written once for both servers that take them: the Next.js route
// (app/api/webhooks/[provider]) and `npm run ingest` (ingest-server.ts). Each adapts its request to
// a WebhookRequest and writes the WebhookResponse back; every step and every answer is here. A
// throw (the database away) is left to the server's own error answer, the same 503 or 500 as any
// other request to it.

export type WebhookRequest = {
  method: string;
  /** The `{provider}` of `/api/webhooks/{provider}`, decoded. */
  provider: string;
  /** Names lower-cased. */
  headers: HeaderMap;
  query: URLSearchParams;
  /** The raw body, read only once the provider is known; throws BodyTooLargeError past `limitBytes`. */
  readBody(limitBytes: number): Promise<Buffer>;
};

export type WebhookResponse = { status: number; headers: Record<string, string>; body: object };

export type ReceptionDeps = {
  config: AppConfig;
  /** What storing needs, asked for once a body is in hand (the web process starts its job producer on first use). */
  ingestDeps(): IngestDeps | Promise<IngestDeps>;
};

const answer = (status: number, body: object, headers: Record<string, string> = {}): WebhookResponse => ({ status, headers, body });

/**
 * A gateway delivers one webhook: method (405), provider (404), body within the limit (413), then
 * verified, stored once with its job and answered at once (ingestEvent and ingestReply).
 */
export async function receiveWebhook(deps: ReceptionDeps, request: WebhookRequest): Promise<WebhookResponse> {
  if (request.method !== "POST") return answer(405, { error: "only POST", code: "METHOD_NOT_ALLOWED" }, { allow: "POST" });
  const { provider } = request;
  // Every line of this delivery carries its request id; never the body, headers or payload.
  const log = logger("ingest", { requestId: webhookRequestId(request.headers["x-request-id"]), provider });
  if (!findDriver(provider)) {
    log.warn("unknown provider");
    return answer(404, unknownProvider(provider));
  }
  const limitBytes = deps.config.bodyLimitBytes;
  let rawBody: Buffer;
  try {
    rawBody = await request.readBody(limitBytes);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    log.warn({ limitBytes }, "body too large");
    return answer(413, { error: error.message, code: "PAYLOAD_TOO_LARGE" });
  }
  const started = performance.now();
  const outcome = await ingestEvent(await deps.ingestDeps(), { provider, rawBody, headers: request.headers, query: request.query });
  recordWebhookReceived(log, provider, outcome, (performance.now() - started) / 1000, rawBody.length);
  const reply = ingestReply(outcome, provider);
  return answer(reply.status, reply.body, reply.headers);
}
