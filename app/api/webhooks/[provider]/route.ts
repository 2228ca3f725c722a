import { NextResponse, type NextRequest } from "next/server";
import { errorResponse, withErrors } from "@/app/_server/route-handler";
import { ingestEvent } from "@/lib/inbox/ingest-event";
import { BodyTooLargeError, headerMap, readBodyWithLimit } from "@/lib/http/read-body";
import { findDriver } from "@/lib/providers/registry";
import { recordIngest } from "@/lib/observability/metrics";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

/** A gateway delivers one webhook: verify, store once, enqueue, answer at once. */
export const POST = withErrors(async (request: NextRequest, context: RouteContext<"/api/webhooks/[provider]">) => {
  const { provider } = await context.params;
  if (!findDriver(provider)) return errorResponse(404, `unknown provider "${provider}"`, "NOT_FOUND");
  const runtime = webRuntime();

  let rawBody: Buffer;
  try {
    rawBody = await readBodyWithLimit(request, runtime.config.bodyLimitBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) return errorResponse(413, error.message, "PAYLOAD_TOO_LARGE");
    throw error;
  }

  const started = performance.now();
  const outcome = await ingestEvent(
    { pool: runtime.pool, boss: await runtime.boss(), config: runtime.config },
    { provider, rawBody, headers: headerMap(request.headers), query: request.nextUrl.searchParams },
  );
  if (outcome.kind !== "unknown_provider") {
    const result = outcome.kind === "stored" && outcome.status === "failed" ? "stored_failed" : outcome.kind;
    recordIngest(provider, result, (performance.now() - started) / 1000);
  }
  switch (outcome.kind) {
    case "stored":
    case "duplicate":
      return NextResponse.json({ received: true, duplicate: outcome.duplicate });
    case "rejected":
      return errorResponse(401, `invalid signature: ${outcome.reason}`, "INVALID_SIGNATURE");
    case "not_configured":
      console.error(
        `[ingest] refusing ${outcome.provider} webhooks: no secret configured ` +
          `(set WEBHOOK_SECRET_${outcome.provider.toUpperCase()}); unsigned events are never accepted`,
      );
      return errorResponse(503, `provider "${outcome.provider}" is not configured`, "NOT_CONFIGURED");
    case "unknown_provider":
      return errorResponse(404, `unknown provider "${provider}"`, "NOT_FOUND");
  }
});
