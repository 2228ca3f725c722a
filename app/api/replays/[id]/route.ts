import { NextResponse, type NextRequest } from "next/server";
import { errorResponse, withErrors } from "@/app/_server/route-handler";
import { requireRouteAccess } from "@/app/_server/session";
import { getReplayRunView } from "@/lib/console/get-replay-run-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { rowIdSchema } from "@/lib/request/input-schemas";

export const dynamic = "force-dynamic";

/** A bulk replay's progress and where its events stand, polled by the replay page. */
export const GET = withErrors(async (_request: NextRequest, context: RouteContext<"/api/replays/[id]">) => {
  await requireRouteAccess("GET /api/replays/[id]");
  const id = rowIdSchema.parse((await context.params).id);
  const view = await getReplayRunView(webRuntime().pool, id);
  return view ? NextResponse.json(view) : errorResponse(404, "replay run not found", "NOT_FOUND");
});
