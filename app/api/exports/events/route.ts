import type { NextRequest } from "next/server";
import { csvDownload } from "@/app/_server/csv-response";
import { parseFilterParams } from "@/app/_server/event-filter-params";
import { errorResponse, withErrors } from "@/app/_server/route-handler";
import { requirePermission } from "@/app/_server/session";
import { ROUTE_ACCESS } from "@/lib/auth/access-table";
import { eventsCsv } from "@/lib/console/export-csv";
import { maySearch, SEARCH_NEEDS_SUPPORT } from "@/lib/privacy/mask-for-role";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

/** The events of the explorer's filter as CSV, every one of them, masked for the role. */
export const GET = withErrors(async (request: NextRequest) => {
  const user = await requirePermission(ROUTE_ACCESS["GET /api/exports/events"]);
  const parsed = parseFilterParams(Object.fromEntries(request.nextUrl.searchParams));
  if (!parsed.ok) return errorResponse(400, parsed.message, "BAD_REQUEST");
  if (!maySearch(user.role, parsed.filter)) return errorResponse(403, SEARCH_NEEDS_SUPPORT, "FORBIDDEN");
  return csvDownload(request, user, "events", parsed.filter, eventsCsv(webRuntime().pool, user.role, parsed.filter));
});
