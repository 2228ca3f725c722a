import { NextResponse, type NextRequest } from "next/server";
import { errorResponse, withErrors } from "@/app/_server/route-handler";
import { ingestEvent } from "@/lib/inbox/ingest/ingest-event";
import { webhookRequestId, ingestReply, recordWebhookReceived, unknownProvider } from "@/lib/inbox/ingest/ingest-reply";
import { BodyTooLargeError, headerMap, readBodyWithLimit } from "@/lib/request/read-body";
import { findDriver } from "@/lib/providers/registry";
import { logger } from "@/lib/observability/logger";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

/** A gateway sends one webhook: verify, store once, enqueue, answer at once. */
export const POST = withErrors(async (request: NextRequest, context: RouteContext<"/api/webhooks/[provider]">) => {
  const { provider } = await context.params;
  const runtime = webRuntime();
  const requestId = webhookRequestId(request.headers.get("x-request-id"));
  // Every line about this webhook carries its request id; never the body, headers or payload.
  const log = logger("ingest", { requestId, provider });
  if (!findDriver(provider)) {
    log.warn("unknown provider");
    return NextResponse.json(unknownProvider(provider), { status: 404 });
  }

  let rawBody: Buffer;
  try {
    rawBody = await readBodyWithLimit(request, runtime.config.bodyLimitBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      log.warn({ limitBytes: runtime.config.bodyLimitBytes }, "body too large");
      return errorResponse(413, error.message, "PAYLOAD_TOO_LARGE");
    }
    throw error;
  }

  const started = performance.now();
  const outcome = await ingestEvent(
    { pool: runtime.pool, boss: await runtime.boss(), config: runtime.config },
    { provider, rawBody, headers: headerMap(request.headers), query: request.nextUrl.searchParams },
  );
  recordWebhookReceived(log, provider, outcome, (performance.now() - started) / 1000, rawBody.length);
  const reply = ingestReply(outcome, provider);
  return NextResponse.json(reply.body, { status: reply.status, headers: reply.headers });
});
