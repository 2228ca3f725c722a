import { NextResponse, type NextRequest } from "next/server";
import { mayReadHealthDetails } from "@/app/_server/api-token";
import { withErrors } from "@/app/_server/route-handler";
import { checkHealth } from "@/lib/ops/health";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

/**
 * Public: a bare answer a load balancer can use ({status: "ok"}, 503 when not healthy). With a
 * HEALTH_TOKENS bearer token or a console session: the database, queue and backlog details.
 */
export const GET = withErrors(async (request: NextRequest) => {
  const runtime = webRuntime();
  const report = await checkHealth(runtime.pool, runtime.boss);
  const status = report.healthy ? 200 : 503;
  if (!(await mayReadHealthDetails(request))) return NextResponse.json({ status: report.healthy ? "ok" : "degraded" }, { status });
  return NextResponse.json(report, { status });
});
