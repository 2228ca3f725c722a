import type { NextRequest } from "next/server";
import { csvDownload } from "@/app/_server/csv-response";
import { parseFilterParams } from "@/lib/console/event-filter-params";
import { errorResponse, withErrors } from "@/app/_server/route-handler";
import { requireRouteAccess } from "@/app/_server/session";
import { eventsExport } from "@/lib/console/export-csv";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

/** The events of the explorer's filter as CSV, every one of them in the explorer's order, masked for the role. */
export const GET = withErrors(async (request: NextRequest) => {
  const user = await requireRouteAccess("GET /api/exports/events");
  const parsed = parseFilterParams(Object.fromEntries(request.nextUrl.searchParams));
  if (!parsed.ok) return errorResponse(400, parsed.message, "BAD_REQUEST");
  const exported = eventsExport(webRuntime().pool, user.role, parsed.filter, parsed.sort);
  if (!exported.ok) return errorResponse(403, exported.message, "FORBIDDEN");
  return csvDownload(request, user, "events", parsed.filter, exported.lines);
});
