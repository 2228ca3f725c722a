import type { Metadata } from "next";
import Link from "next/link";
import { displayZone } from "@/app/_server/display-zone";
import { requirePageAccess } from "@/app/_server/session";
import { VolumeChart } from "@/app/_components/volume-chart";
import { getOverviewView } from "@/lib/console/get-overview-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { WebhooksReceivedTable, WorkersTable } from "./liveness-tables.client";
import { ProviderStatsTable } from "./provider-stats-table.client";
import { StatCards } from "./stat-cards";
import { agree, plural } from "@/lib/text/words";

export const metadata: Metadata = { title: "Overview" };
export const dynamic = "force-dynamic";

export default async function OverviewPage() {
  await requirePageAccess("/");
  const { reads, config } = webRuntime();
  const view = await reads.read((pool) => getOverviewView(pool, config));
  const { backlog, jumped } = view;
  const now = new Date().toISOString();
  return (
    <>
      <h1>Overview</h1>
      {view.noWorkerAlive ? (
        <div className="banner bad" role="alert" data-testid="no-worker-banner">
          <strong>No worker is alive:</strong> {plural(backlog.pending, "event")} {agree(backlog.pending, "waits", "wait")} and no worker is
          running (none has sent a heartbeat in the last few seconds). Start one with <code>npm run worker</code>.
        </div>
      ) : view.oldPending ? (
        <div className="banner warn" role="status" data-testid="old-pending-banner">
          The oldest pending event has waited {Math.round((backlog.oldestPendingSeconds ?? 0) / 60)} min: the workers are behind.{" "}
          <Link href="/events?status=pending&sort=received_asc">Oldest pending events</Link>
        </div>
      ) : null}
      {backlog.failed > 0 ? (
        <div className="banner bad" role="alert">
          <strong>{plural(backlog.failed, "failed event")}</strong> {agree(backlog.failed, "needs", "need")} a person.{" "}
          <Link href="/events?status=failed">Review failed events</Link>
        </div>
      ) : null}
      {view.deliveries.failing.length > 0 ? (
        <div className="banner bad" role="alert" data-testid="destination-failing-banner">
          <strong>Pushes are failing</strong> to{" "}
          {view.deliveries.failing
            .map(({ name, reason }) => `${name} (${reason === "gone" ? "switched off after a 410" : "circuit open"})`)
            .join(", ")}
          : {plural(view.deliveries.undelivered, "push", "pushes")} {agree(view.deliveries.undelivered, "waits", "wait")}.{" "}
          <Link href="/destinations">Destinations</Link>
        </div>
      ) : null}
      {jumped.length > 0 ? (
        <div className="banner warn" role="status">
          Ignored ratio jumped for <strong>{jumped.join(", ")}</strong> in the last hour, against each provider&apos;s own week: the gateway
          may have changed its format or ordering.
        </div>
      ) : null}
      <StatCards
        backlog={backlog}
        workersAlive={view.workers.filter((worker) => worker.state === "alive").length}
        flagged={view.noWorkerAlive || view.oldPending}
        deliveries={view.deliveries}
      />
      <h2>Webhooks received</h2>
      <WebhooksReceivedTable webhooks={view.webhooks} now={now} />
      <h2 id="workers">Workers</h2>
      <WorkersTable workers={view.workers} now={now} />
      <h2>Events by provider</h2>
      <ProviderStatsTable rows={view.rows} />
      <div className="panel" style={{ marginTop: 16 }}>
        <VolumeChart data={view.volume} title="Last 24 hours" zone={await displayZone()} />
      </div>
    </>
  );
}
