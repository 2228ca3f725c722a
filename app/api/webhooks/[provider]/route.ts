import { NextResponse, type NextRequest } from "next/server";
import { errorResponse, withErrors } from "@/app/_server/route-handler";
import { ingestEvent } from "@/lib/inbox/ingest-event";
import { BodyTooLargeError, headerMap, readBodyWithLimit } from "@/lib/http/read-body";
import { findDriver } from "@/lib/providers/registry";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

function withRetryAfter(response: Response, seconds: number): Response {
  response.headers.set("retry-after", String(seconds));
  return response;
}

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

  const outcome = await ingestEvent(
    { pool: runtime.pool, boss: await runtime.boss(), config: runtime.config },
    { provider, rawBody, headers: headerMap(request.headers), query: request.nextUrl.searchParams },
  );
  switch (outcome.kind) {
    case "stored":
    case "duplicate":
      return NextResponse.json({ received: true, duplicate: outcome.duplicate });
    case "rejected":
      return errorResponse(401, `invalid signature: ${outcome.reason}`, "INVALID_SIGNATURE");
    case "unverifiable":
      // Our side can't check the signature right now: 503 makes the gateway resend later, and nothing
      // unverified is stored or acknowledged.
      console.error(`[ingest] cannot verify ${provider} webhooks: ${outcome.reason}`);
      return withRetryAfter(errorResponse(503, "the signature cannot be verified right now; retry later", "SIGNATURE_UNVERIFIABLE"), 60);
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
