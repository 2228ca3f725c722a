import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { isDatabaseUnavailable } from "../../db/pool";
import { errorForLog } from "../../errors/app-error";
import { BodyTooLargeError, readStreamWithLimit } from "../../request/read-body";
import { findDriver } from "../../providers/registry";
import { createLimitedServer } from "../../request/create-limited-server";
import { isMalformedTarget, MALFORMED_TARGET } from "../../request/malformed-path";
import type { HeaderMap } from "../../providers/types";
import { ingestEvent, type IngestDeps } from "./ingest-event";
import { webhookRequestId, ingestReply, recordWebhookReceived, unknownProvider } from "./ingest-reply";
import { logger } from "../../observability/logger";

// The lean webhook server of `npm run ingest`: node:http, no framework, serving only
// /api/webhooks/{provider} through the same ingestEvent and the same replies as the Next.js route.

const WEBHOOK_PATH = /^\/api\/webhooks\/([^/]+)\/?$/;

function send(response: ServerResponse, status: number, body: object, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  response.end(text);
}

/** Node keeps repeated headers as arrays (set-cookie) or joined; drivers read one string per name. */
function headerMap(request: IncomingMessage): HeaderMap {
  const map: HeaderMap = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) map[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return map;
}

async function handle(deps: IngestDeps, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (isMalformedTarget(request.url ?? "/")) return send(response, 400, MALFORMED_TARGET);
  const url = new URL(request.url ?? "/", "http://ingest.invalid");
  const match = WEBHOOK_PATH.exec(url.pathname);
  if (!match) return send(response, 404, { error: "not found", code: "NOT_FOUND" });
  if (request.method !== "POST") return send(response, 405, { error: "only POST", code: "METHOD_NOT_ALLOWED" }, { allow: "POST" });
  const provider = decodeURIComponent(match[1]!);
  const header = request.headers["x-request-id"];
  const log = logger("ingest", { requestId: webhookRequestId(Array.isArray(header) ? header[0] : header), provider });
  if (!findDriver(provider)) return send(response, 404, unknownProvider(provider));

  let rawBody: Buffer;
  try {
    // Not destroyed on an early stop, so the 413 still reaches the client; the connection then closes.
    const stream = request.iterator({ destroyOnReturn: false });
    rawBody = await readStreamWithLimit(request.headers["content-length"], stream, deps.config.bodyLimitBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      return send(response, 413, { error: error.message, code: "PAYLOAD_TOO_LARGE" }, { connection: "close" });
    }
    throw error;
  }
  const started = performance.now();
  const outcome = await ingestEvent(deps, { provider, rawBody, headers: headerMap(request), query: url.searchParams });
  recordWebhookReceived(log, provider, outcome, (performance.now() - started) / 1000, rawBody.length);
  const reply = ingestReply(outcome, provider);
  send(response, reply.status, reply.body, reply.headers);
}

/** The dedicated ingest server; the caller listens and closes it. */
export function createIngestServer(deps: IngestDeps): Server {
  return createLimitedServer(deps.config.http, (request, response) => {
    handle(deps, request, response).catch((error: unknown) => {
      logger("ingest").error({ error: errorForLog(error) }, "unhandled error");
      // Database away: the gateway resends later; nothing was acknowledged.
      if (!response.headersSent && isDatabaseUnavailable(error)) {
        send(response, 503, { error: "database unavailable, retry later", code: "DATABASE_UNAVAILABLE" }, { "retry-after": "5" });
      } else if (!response.headersSent) send(response, 500, { error: "internal error" });
      else response.destroy();
    });
  });
}
