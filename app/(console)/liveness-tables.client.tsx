"use client";

import Link from "next/link";
import { DataTable, dataColumns } from "@/app/_components/data-table.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import type { OverviewView } from "@/lib/console/get-overview-view";

type Worker = OverviewView["workers"][number];
type Received = OverviewView["webhooks"][number];

// Lost: it vanished without stopping (killed, host gone); shown an hour, a stopped one ten minutes.
const STATE_BADGE: Record<Worker["state"], string> = { alive: "processed", stopping: "pending", lost: "failed", stopped: "ignored" };

const worker = dataColumns<Worker>();
function workerColumns(now: string) {
  return worker.columns([
    worker.accessor("worker", { header: "Worker", meta: { mono: true } }),
    worker.accessor("state", {
      header: "State",
      cell: (info) => <span className={`badge ${STATE_BADGE[info.getValue()]}`}>{info.getValue()}</span>,
    }),
    worker.accessor("beatAt", { header: "Last heartbeat", cell: (info) => <DisplayTime value={info.getValue()} now={now} /> }),
    worker.accessor("stoppedAt", {
      header: "Stopped",
      cell: (info) => {
        const value = info.getValue();
        return value ? <DisplayTime value={value} now={now} /> : null;
      },
    }),
    worker.accessor("startedAt", { header: "Started", cell: (info) => <DisplayTime value={info.getValue()} /> }),
  ]);
}

/** Workers alive or stopping, then those lost in the last hour or stopped in the last ten minutes. */
export function WorkersTable({ workers, now }: { workers: Worker[]; now: string }) {
  return (
    <DataTable
      label="Workers"
      columns={workerColumns(now)}
      rows={workers}
      rowKey={(row) => row.worker}
      rowProps={(row) => ({ "data-state": row.state, className: row.state === "stopped" || row.state === "lost" ? "faded" : undefined })}
      empty="No worker has run in the last hour: start one with npm run worker."
    />
  );
}

const received = dataColumns<Received>();
function receivedColumns(now: string) {
  return received.columns([
    received.accessor("provider", {
      header: "Provider",
      cell: (info) => <Link href={`/events?provider=${info.getValue()}`}>{info.getValue()}</Link>,
    }),
    received.accessor("lastReceivedAt", {
      header: "Last event stored",
      cell: (info) => (
        <>
          <DisplayTime value={info.getValue()} now={now} />
          {info.row.original.silent ? <span className="badge failed"> quieter than usual</span> : null}
        </>
      ),
    }),
    received.accessor("weekTotal", { header: "Events stored, last 7 days", meta: { numeric: true } }),
    received.accessor("rejectedLastHour", {
      header: "Rejected signatures, last hour",
      meta: { numeric: true },
      cell: (info) => (info.getValue() > 0 ? <Link href="/signatures">{info.getValue()}</Link> : 0),
    }),
  ]);
}

/**
 * Per configured provider: its last event stored and how many it stored in 7 days (a resent webhook is
 * stored once, so these count events, not deliveries), and the webhooks refused for their signature.
 */
export function WebhooksReceivedTable({ webhooks, now }: { webhooks: Received[]; now: string }) {
  return (
    <DataTable
      label="Webhooks received per provider"
      columns={receivedColumns(now)}
      rows={webhooks}
      rowKey={(row) => row.provider}
      rowProps={(row) => ({ "data-provider": row.provider })}
      empty="No gateway is configured."
    />
  );
}
