import { NextResponse, type NextRequest } from "next/server";
import { errorResponse, withErrors } from "@/app/_server/route-handler";
import { ingestEvent } from "@/lib/inbox/ingest-event";
import { ingestReply, unknownProvider } from "@/lib/inbox/ingest-reply";
import { BodyTooLargeError, headerMap, readBodyWithLimit } from "@/lib/http/read-body";
import { findDriver } from "@/lib/providers/registry";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

/** A gateway delivers one webhook: verify, store once, enqueue, answer at once. */
export const POST = withErrors(async (request: NextRequest, context: RouteContext<"/api/webhooks/[provider]">) => {
  const { provider } = await context.params;
  if (!findDriver(provider)) return NextResponse.json(unknownProvider(provider), { status: 404 });
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
  const reply = ingestReply(outcome, provider);
  return NextResponse.json(reply.body, { status: reply.status });
});
