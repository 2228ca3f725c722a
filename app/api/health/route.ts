import { NextResponse, type NextRequest } from "next/server";
import { mayReadHealthDetails } from "@/app/_server/api-token";
import { withErrors } from "@/app/_server/route-handler";
import { checkHealth } from "@/lib/ops/health";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

/**
 * Public: a bare answer ({status: "ok"} or "degraded"). 503 only while this process can't serve
 * (database or queue away), so a load balancer never drains the web tier because no worker runs;
 * "degraded" with 200 is for monitors. With a HEALTH_TOKENS bearer token or a console session: the
 * problems, database, queue, backlog and workers.
 */
export const GET = withErrors(async (request: NextRequest) => {
  const runtime = webRuntime();
  const report = await checkHealth(runtime.pool, runtime.boss);
  const status = report.serving ? 200 : 503;
  if (!(await mayReadHealthDetails(request))) return NextResponse.json({ status: report.status }, { status });
  return NextResponse.json(report, { status });
});
