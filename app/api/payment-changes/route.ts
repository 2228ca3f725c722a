import { NextResponse, type NextRequest } from "next/server";
import { requireApiToken } from "@/app/_server/api-token";
import { withErrors } from "@/app/_server/route-handler";
import { providersFor } from "@/lib/auth/api-token";
import { changeFeedQuerySchema, readChangeFeed } from "@/lib/outbox/read-change-feed";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

/**
 * The change feed for the host application: payment changes in feed order after `after`, with the
 * cursor to resume from. A reader that follows the cursor sees every change once (docs/host-integration.md).
 */
export const GET = withErrors(async (request: NextRequest) => {
  const token = requireApiToken(request);
  const asked = changeFeedQuerySchema.parse(Object.fromEntries(request.nextUrl.searchParams));
  const query = { ...asked, provider: providersFor(token, asked.provider) };
  return NextResponse.json(await readChangeFeed(webRuntime().feed, query, { reader: token.token, signal: request.signal }));
});
