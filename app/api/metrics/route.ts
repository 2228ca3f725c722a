import type { NextRequest } from "next/server";
import { errorResponse, withErrors } from "@/app/_server/route-handler";
import { checkMetricsAccess, renderMetrics } from "@/lib/ops/render-metrics";
import { METRICS_CONTENT_TYPE } from "@/lib/observability/metrics";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

/** Prometheus text for a scraper holding METRICS_TOKEN; the web process's counters and the backlog. */
export const GET = withErrors(async (request: NextRequest) => {
  const runtime = webRuntime();
  switch (checkMetricsAccess(runtime.config.metricsToken, request.headers.get("authorization"))) {
    case "not_configured":
      return errorResponse(404, "metrics are off: set METRICS_TOKEN to enable /api/metrics", "NOT_FOUND");
    case "unauthorized":
      return errorResponse(401, "missing or invalid bearer token", "UNAUTHORIZED");
    case "allowed":
      return new Response(await renderMetrics(runtime.pool, runtime.boss), { headers: { "content-type": METRICS_CONTENT_TYPE } });
  }
});
