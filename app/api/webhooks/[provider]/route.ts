import { randomUUID } from "node:crypto";
import { NextResponse, type NextRequest } from "next/server";
import { errorResponse, withErrors } from "@/app/_server/route-handler";
import { ingestEvent } from "@/lib/inbox/ingest-event";
import { BodyTooLargeError, headerMap, readBodyWithLimit } from "@/lib/http/read-body";
import { findDriver } from "@/lib/providers/registry";
import { logger } from "@/lib/observability/logger";
import { recordIngest } from "@/lib/observability/metrics";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

// A proxy's or gateway's request id is kept when it looks like one; otherwise each delivery gets its own.
function requestIdOf(request: NextRequest): string {
  const given = request.headers.get("x-request-id");
  return given && /^[\w.:-]{1,100}$/.test(given) ? given : randomUUID();
}

function withRetryAfter(response: Response, seconds: number): Response {
  response.headers.set("retry-after", String(seconds));
  return response;
}

/** A gateway delivers one webhook: verify, store once, enqueue, answer at once. */
export const POST = withErrors(async (request: NextRequest, context: RouteContext<"/api/webhooks/[provider]">) => {
  const { provider } = await context.params;
  const runtime = webRuntime();
  const requestId = requestIdOf(request);
  // Every line of this delivery carries its request id; never the body, headers or payload.
  const log = logger("ingest", { requestId, provider });
  if (!findDriver(provider)) {
    log.warn("unknown provider");
    return errorResponse(404, `unknown provider "${provider}"`, "NOT_FOUND");
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
  const ms = performance.now() - started;
  if (outcome.kind !== "unknown_provider") {
    const result = outcome.kind === "stored" && outcome.status === "failed" ? "stored_failed" : outcome.kind;
    recordIngest(provider, result, ms / 1000);
    const inboxId = outcome.kind === "stored" ? outcome.inboxId : undefined;
    const reason = outcome.kind === "rejected" ? outcome.reason : undefined;
    log[result === "stored" || result === "duplicate" ? "info" : "warn"]({ result, inboxId, reason, ms: Math.round(ms), bytes: rawBody.length }, "delivery answered");
  }
  switch (outcome.kind) {
    case "stored":
    case "duplicate":
      return NextResponse.json({ received: true, duplicate: outcome.duplicate });
    case "rejected":
      return errorResponse(401, `invalid signature: ${outcome.reason}`, "INVALID_SIGNATURE");
    case "unverifiable":
      // Our side can't check the signature right now: 503 makes the gateway resend later, and nothing
      // unverified is stored or acknowledged.
      log.error({ reason: outcome.reason }, "cannot verify webhooks right now");
      return withRetryAfter(errorResponse(503, "the signature cannot be verified right now; retry later", "SIGNATURE_UNVERIFIABLE"), 60);
    case "not_configured":
      log.error(
        `refusing ${outcome.provider} webhooks: no secret configured ` +
          `(set WEBHOOK_SECRET_${outcome.provider.toUpperCase()}); unsigned events are never accepted`,
      );
      return errorResponse(503, `provider "${outcome.provider}" is not configured`, "NOT_CONFIGURED");
    case "unknown_provider":
      return errorResponse(404, `unknown provider "${provider}"`, "NOT_FOUND");
  }
});
