import { NextResponse, type NextRequest } from "next/server";
import { withErrors } from "@/app/_server/route-handler";
import { receiveWebhook } from "@/lib/inbox/ingest/receive-webhook";
import { headerMap, readBodyWithLimit } from "@/lib/request/read-body";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

/** A gateway delivers one webhook: the reception pipeline (lib/inbox/ingest/receive-webhook.ts) answers it. */
export const POST = withErrors(async (request: NextRequest, context: RouteContext<"/api/webhooks/[provider]">) => {
  const { provider } = await context.params;
  const runtime = webRuntime();
  const reply = await receiveWebhook(
    { config: runtime.config, ingestDeps: async () => ({ pool: runtime.pool, boss: await runtime.boss(), config: runtime.config }) },
    {
      method: request.method,
      provider,
      headers: headerMap(request.headers),
      query: request.nextUrl.searchParams,
      readBody: (limitBytes) => readBodyWithLimit(request, limitBytes),
    },
  );
  return NextResponse.json(reply.body, { status: reply.status, headers: reply.headers });
});
