import type { IncomingMessage, Server, ServerResponse } from "node:http";
import { isDatabaseUnavailable } from "../../db/pool";
import { errorForLog } from "../../errors/app-error";
import { BodyTooLargeError, readStreamWithLimit } from "../../request/read-body";
import { isTrustedAddress, trustedProxySet } from "../../request/client-address";
import { createLimitedServer } from "../../request/create-limited-server";
import { isMalformedTarget, MALFORMED_TARGET } from "../../request/malformed-path";
import type { HeaderMap } from "../../providers/types";
import type { IngestDeps } from "./ingest-event";
import { receiveWebhook } from "./receive-webhook";
import { logger } from "../../observability/logger";

// The lean webhook server of `npm run ingest`: node:http, no framework, serving only
// /api/webhooks/{provider} and /api/webhooks/{provider}/{account} through the same reception
// pipeline as the Next.js routes.

const WEBHOOK_PATH = /^\/api\/webhooks\/([^/]+)(?:\/([^/]+))?\/?$/;

/** Is this a webhook delivery (what the web server keeps its reserved sockets for)? */
export function isWebhookRequest(request: IncomingMessage): boolean {
  return request.method === "POST" && WEBHOOK_PATH.test((request.url ?? "/").split("?")[0]!);
}

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

async function readBody(request: IncomingMessage, response: ServerResponse, limitBytes: number): Promise<Buffer> {
  try {
    // Not destroyed on an early stop, so the 413 still reaches the client.
    const stream = request.iterator({ destroyOnReturn: false });
    return await readStreamWithLimit(request.headers["content-length"], stream, limitBytes);
  } catch (error) {
    // The rest of the body is left unread: this connection can carry no further request.
    if (error instanceof BodyTooLargeError) response.setHeader("connection", "close");
    throw error;
  }
}

async function handle(deps: IngestDeps, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (isMalformedTarget(request.url ?? "/")) return send(response, 400, MALFORMED_TARGET);
  const url = new URL(request.url ?? "/", "http://ingest.invalid");
  const match = WEBHOOK_PATH.exec(url.pathname);
  if (!match) return send(response, 404, { error: "not found", code: "NOT_FOUND" });
  const reply = await receiveWebhook(
    { config: deps.config, accounts: deps.accounts, ingestDeps: () => deps },
    {
      method: request.method ?? "",
      provider: decodeURIComponent(match[1]!),
      ...(match[2] === undefined ? {} : { account: decodeURIComponent(match[2]) }),
      headers: headerMap(request),
      query: url.searchParams,
      readBody: (limitBytes) => readBody(request, response, limitBytes),
    },
  );
  send(response, reply.status, reply.body, reply.headers);
}

/** The dedicated ingest server; the caller listens and closes it. */
export function createIngestServer(deps: IngestDeps): Server {
  const proxies = trustedProxySet(deps.config.trustedProxies);
  const uncapped = (address: string) => isTrustedAddress(proxies, address);
  return createLimitedServer(
    deps.config.http,
    (request, response) => {
      handle(deps, request, response).catch((error: unknown) => {
        logger("ingest").error({ error: errorForLog(error) }, "unhandled error");
        // Database away: the gateway resends later; nothing was acknowledged.
        if (!response.headersSent && isDatabaseUnavailable(error)) {
          send(response, 503, { error: "database unavailable, retry later", code: "DATABASE_UNAVAILABLE" }, { "retry-after": "5" });
        } else if (!response.headersSent) send(response, 500, { error: "internal error" });
        else response.destroy();
      });
    },
    { uncapped },
  );
}
