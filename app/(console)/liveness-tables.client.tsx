"use client";

import Link from "next/link";
import { DataTable, dataColumns } from "@/app/_components/data-table.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import type { OverviewView } from "@/lib/console/get-overview-view";

type Worker = OverviewView["workers"][number];
type Received = OverviewView["webhooks"][number];

const worker = dataColumns<Worker>();
function workerColumns(now: string) {
  return worker.columns([
    worker.accessor("worker", { header: "Worker", meta: { mono: true } }),
    worker.accessor("alive", {
      header: "State",
      cell: (info) => <span className={`badge ${info.getValue() ? "processed" : "failed"}`}>{info.getValue() ? "alive" : "silent"}</span>,
    }),
    worker.accessor("beatAt", { header: "Last heartbeat", cell: (info) => <DisplayTime value={info.getValue()} now={now} /> }),
    worker.accessor("startedAt", { header: "Started", cell: (info) => <DisplayTime value={info.getValue()} /> }),
  ]);
}

/** Workers seen in the last day and when each last beat. */
export function WorkersTable({ workers, now }: { workers: Worker[]; now: string }) {
  return (
    <DataTable
      label="Workers"
      columns={workerColumns(now)}
      rows={workers}
      rowKey={(row) => row.worker}
      rowProps={(row) => ({ "data-alive": String(row.alive) })}
      empty="No worker has run in the last day: start one with npm run worker."
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
      header: "Last webhook",
      cell: (info) => (
        <>
          <DisplayTime value={info.getValue()} now={now} />
          {info.row.original.silent ? <span className="badge failed"> quieter than usual</span> : null}
        </>
      ),
    }),
    received.accessor("weekTotal", { header: "Last 7 days", meta: { numeric: true } }),
    received.accessor("rejectedLastHour", {
      header: "Rejected signatures, last hour",
      meta: { numeric: true },
      cell: (info) => (info.getValue() > 0 ? <Link href="/signatures">{info.getValue()}</Link> : 0),
    }),
  ]);
}

/** Per configured provider: its last webhook and the webhooks refused for their signature. */
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
