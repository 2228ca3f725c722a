import type { NextRequest } from "next/server";
import { csvDownload } from "@/app/_server/csv-response";
import { parsePaymentParams, paymentsFileName } from "@/lib/console/payment-filter-params";
import { errorResponse, withErrors } from "@/app/_server/route-handler";
import { requireRouteAccess } from "@/app/_server/session";
import { paymentsExport } from "@/lib/console/export-csv";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

/** The payments of the list's filter as CSV, every one of them in the list's order, masked for the role. */
export const GET = withErrors(async (request: NextRequest) => {
  const user = await requireRouteAccess("GET /api/exports/payments");
  const parsed = parsePaymentParams(Object.fromEntries(request.nextUrl.searchParams));
  if (!parsed.ok) return errorResponse(400, parsed.message, "BAD_REQUEST");
  const exported = paymentsExport(webRuntime().pool, user.role, parsed.filter, parsed.sort);
  if (!exported.ok) return errorResponse(403, exported.message, "FORBIDDEN");
  return csvDownload(request, user, "payments", parsed.filter, exported.lines, paymentsFileName(parsed.filter));
});
