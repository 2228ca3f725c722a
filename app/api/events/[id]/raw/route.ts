import type { NextRequest } from "next/server";
import { clientIp } from "@/app/_server/auth";
import { errorResponse, withErrors } from "@/app/_server/route-handler";
import { requireRouteAccess } from "@/app/_server/session";
import { downloadRawBody } from "@/lib/console/download-raw-body";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { rowIdSchema } from "@/lib/request/input-schemas";

export const dynamic = "force-dynamic";

/** The exact bytes a gateway sent, as a download (unmasked roles only, audited). */
export const GET = withErrors(async (request: NextRequest, context: RouteContext<"/api/events/[id]/raw">) => {
  const user = await requireRouteAccess("GET /api/events/[id]/raw");
  const id = rowIdSchema.parse((await context.params).id);
  const download = await downloadRawBody(webRuntime().pool, id, { name: user.email, userId: user.id, ip: clientIp(request.headers) });
  if (download.kind === "missing") return errorResponse(404, "event not found", "NOT_FOUND");
  if (download.kind === "archived") return errorResponse(409, "the event's payload is archived: restore it first", "ARCHIVED");
  return new Response(new Uint8Array(download.rawBody), {
    headers: {
      "content-type": "application/octet-stream",
      "content-disposition": `attachment; filename="${download.provider}-${download.id}.body"`,
    },
  });
});
