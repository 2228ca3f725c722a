import type { Metadata } from "next";
import Link from "next/link";
import { displayZone } from "@/app/_server/display-zone";
import { requirePagePermission } from "@/app/_server/session";
import { VolumeChart } from "@/app/_components/volume-chart";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { getOverviewView } from "@/lib/console/get-overview-view";
import { webhooksQueueDepth, type QueueDepth } from "@/lib/queue/boss";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { ProviderStatsTable } from "./provider-stats-table.client";
import { StatCards } from "./stat-cards";

export const metadata: Metadata = { title: "Overview" };
export const dynamic = "force-dynamic";

/** The queue's depth, or null when the queue can't be read (the page still renders). */
async function queueDepth(): Promise<QueueDepth | null> {
  try {
    return await webhooksQueueDepth(await webRuntime().boss());
  } catch {
    return null;
  }
}

export default async function OverviewPage() {
  await requirePagePermission(PAGE_ACCESS["/"]);
  const [view, queue] = await Promise.all([getOverviewView(webRuntime().pool), queueDepth()]);
  const { backlog, jumped } = view;
  return (
    <>
      <h1>Overview</h1>
      {backlog.failed > 0 ? (
        <div className="banner bad" role="alert">
          <strong>
            {backlog.failed} failed event{backlog.failed === 1 ? "" : "s"}
          </strong>{" "}
          need a person. <Link href="/events?status=failed">Review failed events</Link>
        </div>
      ) : null}
      {jumped.length > 0 ? (
        <div className="banner warn" role="status">
          Ignored ratio jumped for <strong>{jumped.join(", ")}</strong> in the last hour, against each provider&apos;s own week: the gateway may have
          changed its format or ordering.
        </div>
      ) : null}
      <StatCards backlog={backlog} queue={queue} />
      <h2>By provider</h2>
      <ProviderStatsTable rows={view.rows} />
      <div className="panel" style={{ marginTop: 16 }}>
        <VolumeChart data={view.volume} title="Last 24 hours" zone={await displayZone()} />
      </div>
    </>
  );
}
