import { NextResponse } from "next/server";
import { withErrors } from "@/app/_server/route-handler";
import { checkHealth } from "@/lib/ops/health";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const dynamic = "force-dynamic";

/** Database and queue reachable, oldest pending event age; 503 when not healthy. */
export const GET = withErrors(async () => {
  const runtime = webRuntime();
  const report = await checkHealth(runtime.pool, runtime.boss);
  return NextResponse.json(report, { status: report.healthy ? 200 : 503 });
});
