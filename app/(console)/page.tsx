import type { Metadata } from "next";
import Link from "next/link";
import { displayZone } from "@/app/_server/display-zone";
import { requirePagePermission } from "@/app/_server/session";
import { VolumeChart } from "@/app/_components/volume-chart";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { backlogSummary, hourlyVolume, providerStats, STAT_WINDOWS, type StatWindow } from "@/lib/inbox/queries/inbox-stats";
import { webhooksQueueDepth, type QueueDepth } from "@/lib/queue/boss";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const metadata: Metadata = { title: "Overview" };
export const dynamic = "force-dynamic";

const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;

function age(seconds: number | null): string {
  if (seconds === null) return "none";
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

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
  const { pool } = webRuntime();
  const [stats, volume, backlog, queue] = await Promise.all([providerStats(pool), hourlyVolume(pool, 24), backlogSummary(pool), queueDepth()]);
  const windows = Object.keys(STAT_WINDOWS) as StatWindow[];
  const jumped = stats.filter((row) => row.ignoredJump);
  return (
    <>
      <h1>Overview</h1>
      {backlog.failed > 0 ? (
        <div className="banner bad" role="alert">
          <strong>{backlog.failed} failed event{backlog.failed === 1 ? "" : "s"}</strong> need a person.{" "}
          <Link href="/events?status=failed">Review failed events</Link>
        </div>
      ) : null}
      {jumped.length > 0 ? (
        <div className="banner warn" role="status">
          Ignored ratio jumped for <strong>{jumped.map((row) => row.provider).join(", ")}</strong> in the last hour, against each
          provider&apos;s own week: the gateway may have changed its format or ordering.
        </div>
      ) : null}
      <div className="stat-grid">
        <div className="stat">
          <div className="value">{backlog.pending}</div>
          <div className="label">pending events</div>
        </div>
        <div className="stat">
          <div className="value">{age(backlog.oldestPendingSeconds)}</div>
          <div className="label">oldest pending</div>
        </div>
        <div className="stat">
          <div className="value">{queue ? queue.ready + queue.deferred : "?"}</div>
          <div className="label">queue depth (ready + scheduled retries)</div>
        </div>
        <div className="stat">
          <div className="value">{queue ? queue.active : "?"}</div>
          <div className="label">jobs running</div>
        </div>
        <div className="stat">
          <div className="value">{backlog.failed}</div>
          <div className="label">failed events</div>
        </div>
      </div>

      <h2>By provider</h2>
      {stats.length === 0 ? (
        <p className="panel muted">No events in the last 7 days. Gateways deliver to /api/webhooks/&#123;provider&#125;.</p>
      ) : (
        <div className="table-scroll">
        <table className="data">
          <caption className="sr-only">Events per provider by window</caption>
          <thead>
            <tr>
              <th>Provider</th>
              <th>Window</th>
              <th className="num">Events</th>
              <th className="num">Processed</th>
              <th className="num">Ignored</th>
              <th className="num">Failed</th>
              <th className="num">Pending</th>
              <th className="num">Ignored ratio</th>
              <th className="num">Failed ratio</th>
            </tr>
          </thead>
          <tbody>
            {stats.flatMap((row) =>
              windows.map((window) => {
                const counts = row.windows[window];
                return (
                  <tr key={`${row.provider}-${window}`} data-provider={row.provider} data-window={window}>
                    <td>
                      {window === "hour" ? <Link href={`/events?provider=${row.provider}`}>{row.provider}</Link> : null}
                      {window === "hour" && row.ignoredJump ? <span className="badge failed"> ignored jump</span> : null}
                    </td>
                    <td>last {window}</td>
                    <td className="num">{counts.total}</td>
                    <td className="num">{counts.processed}</td>
                    <td className="num">{counts.ignored}</td>
                    <td className="num">{counts.failed}</td>
                    <td className="num">{counts.pending}</td>
                    <td className="num" data-ratio="ignored">
                      {percent(counts.ignoredRatio)}
                      {window === "hour" && row.windows.week.total > counts.total ? (
                        <span className="muted"> (rest of week {percent(row.baselineIgnoredRatio)})</span>
                      ) : null}
                    </td>
                    <td className="num" data-ratio="failed">
                      {percent(counts.failedRatio)}
                    </td>
                  </tr>
                );
              }),
            )}
          </tbody>
        </table>
        </div>
      )}

      <div className="panel" style={{ marginTop: 16 }}>
        <VolumeChart data={volume} title="Last 24 hours" zone={await displayZone()} />
      </div>
    </>
  );
}
