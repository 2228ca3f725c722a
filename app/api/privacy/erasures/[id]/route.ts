import { NextResponse, type NextRequest } from "next/server";
import { requireApiToken } from "@/app/_server/api-token";
import { errorResponse, withErrors } from "@/app/_server/route-handler";
import { getErasure } from "@/lib/erasure/erasures";
import { rowIdSchema } from "@/lib/request/input-schemas";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

/** An erasure's state and its counts per table and archive (never the identifier: its keyed hash). */
export const GET = withErrors(async (request: NextRequest, context: RouteContext<"/api/privacy/erasures/[id]">) => {
  requireApiToken(request);
  const id = rowIdSchema.parse((await context.params).id);
  const erasure = await getErasure(webRuntime().pool, id);
  return erasure ? NextResponse.json({ ...erasure, id: String(erasure.id) }) : errorResponse(404, "erasure not found", "NOT_FOUND");
});
