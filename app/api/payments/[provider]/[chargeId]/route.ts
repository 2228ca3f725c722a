import { NextResponse, type NextRequest } from "next/server";
import { requireApiToken } from "@/app/_server/api-token";
import { errorResponse, withErrors } from "@/app/_server/route-handler";
import { providersFor } from "@/lib/auth/api-token";
import { getHostPayment } from "@/lib/payments/get-payment";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

/** A payment's current state, for the host application (and the simulator's final check). */
export const GET = withErrors(async (request: NextRequest, context: RouteContext<"/api/payments/[provider]/[chargeId]">) => {
  const token = requireApiToken(request);
  const { provider, chargeId } = await context.params;
  providersFor(token, [provider]);
  const payment = await getHostPayment(webRuntime().pool, provider, chargeId);
  return payment ? NextResponse.json(payment) : errorResponse(404, "payment not found", "NOT_FOUND");
});
