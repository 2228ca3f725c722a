import { NextResponse, type NextRequest } from "next/server";
import { receiveWebhook } from "@/lib/inbox/ingest/receive-webhook";
import { headerMap, readBodyWithLimit } from "@/lib/request/read-body";
import { webRuntime } from "@/lib/runtime/web-runtime";

/**
 * One delivery to `/api/webhooks/{provider}[/{account}]`, answered by the reception pipeline
 * (lib/inbox/ingest/receive-webhook.ts), as `npm run ingest` answers it.
 */
export async function answerWebhook(request: NextRequest, provider: string, account?: string): Promise<NextResponse> {
  const runtime = webRuntime();
  const reply = await receiveWebhook(
    {
      config: runtime.config,
      accounts: runtime.accounts(),
      ingestDeps: async () => ({ pool: runtime.pool, boss: await runtime.boss(), config: runtime.config, accounts: runtime.accounts() }),
    },
    {
      method: request.method,
      provider,
      ...(account === undefined ? {} : { account }),
      headers: headerMap(request.headers),
      query: request.nextUrl.searchParams,
      readBody: (limitBytes) => readBodyWithLimit(request, limitBytes),
    },
  );
  return NextResponse.json(reply.body, { status: reply.status, headers: reply.headers });
}
