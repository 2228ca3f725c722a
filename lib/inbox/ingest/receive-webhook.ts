import { DEFAULT_ACCOUNT } from "../../canonical/gateway-account";
import type { AppConfig } from "../../config/env";
import type { AccountDirectory } from "../../gateway-accounts/account-directory";
import { logger } from "../../observability/logger";
import { findDriver } from "../../providers/registry";
import type { HeaderMap } from "../../providers/types";
import { BodyTooLargeError } from "../../request/read-body";
import { deliveryAccount, ingestEvent, type IngestDeps } from "./ingest-event";
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
  /** The `{account}` of `/api/webhooks/{provider}/{account}`, decoded; unset: the default account. */
  account?: string;
  /** Names lower-cased. */
  headers: HeaderMap;
  query: URLSearchParams;
  /** The raw body, read only once the provider is known; throws BodyTooLargeError past `limitBytes`. */
  readBody(limitBytes: number): Promise<Buffer>;
};

export type WebhookResponse = { status: number; headers: Record<string, string>; body: object };

export type ReceptionDeps = {
  config: AppConfig;
  /** The process's gateway accounts, kept current (unset: the configuration's alone). */
  accounts?: AccountDirectory;
  /** What storing needs, asked for once a body is in hand (the web process starts its job producer on first use). */
  ingestDeps(): IngestDeps | Promise<IngestDeps>;
};

const answer = (status: number, body: object, headers: Record<string, string> = {}): WebhookResponse => ({ status, headers, body });

/**
 * A gateway delivers one webhook: method (405), provider (404), account (404 unknown, 503 disabled),
 * body within the limit (413), then verified with its account's secrets, stored once with its job
 * and answered at once (ingestEvent and ingestReply).
 */
export async function receiveWebhook(deps: ReceptionDeps, request: WebhookRequest): Promise<WebhookResponse> {
  if (request.method !== "POST") return answer(405, { error: "only POST", code: "METHOD_NOT_ALLOWED" }, { allow: "POST" });
  const { provider } = request;
  // Every line of this delivery carries its request id; never the body, headers or payload.
  const log = logger("ingest", { requestId: webhookRequestId(request.headers["x-request-id"]), provider });
  const driver = findDriver(provider);
  if (!driver) {
    log.warn("unknown provider");
    return answer(404, unknownProvider(provider));
  }
  const started = performance.now();
  // Refused before its body is read: nothing of an unknown or disabled account's delivery is kept.
  const found = await deliveryAccount(deps, driver.name, request.account ?? DEFAULT_ACCOUNT);
  if ("refused" in found) {
    recordWebhookReceived(log, provider, found.refused, (performance.now() - started) / 1000, 0);
    const reply = ingestReply(found.refused, provider);
    return answer(reply.status, reply.body, reply.headers);
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
  const storing = performance.now();
  const outcome = await ingestEvent(await deps.ingestDeps(), {
    provider,
    account: found.account,
    rawBody,
    headers: request.headers,
    query: request.query,
  });
  recordWebhookReceived(log, provider, outcome, (performance.now() - storing) / 1000, rawBody.length);
  const reply = ingestReply(outcome, provider);
  return answer(reply.status, reply.body, reply.headers);
}
