import type { NextRequest } from "next/server";
import { errorResponse, withErrors } from "@/app/_server/route-handler";
import { requirePermission } from "@/app/_server/session";
import { ROUTE_ACCESS } from "@/lib/auth/access-table";
import { getEvent } from "@/lib/inbox/queries/get-event";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { rowIdSchema } from "@/lib/request/input-schemas";

export const dynamic = "force-dynamic";

/** The exact bytes a gateway sent, as a download (unmasked roles only). */
export const GET = withErrors(async (_request: NextRequest, context: RouteContext<"/api/events/[id]/raw">) => {
  await requirePermission(ROUTE_ACCESS["GET /api/events/[id]/raw"]);
  const id = rowIdSchema.parse((await context.params).id);
  const event = await getEvent(webRuntime().pool, id);
  if (!event) return errorResponse(404, "event not found", "NOT_FOUND");
  if (!event.rawBody) return errorResponse(409, "the event's payload is archived: restore it first", "ARCHIVED");
  return new Response(new Uint8Array(event.rawBody), {
    headers: {
      "content-type": "application/octet-stream",
      "content-disposition": `attachment; filename="${event.provider}-${event.id}.body"`,
    },
  });
});
