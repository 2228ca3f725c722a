"use client";

import Link from "next/link";
import { DataTable, dataColumns, type DataTablePaging } from "@/app/_components/data-table.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import { StatusBadge } from "@/app/_components/status-badge";
import type { ReplaysView } from "@/lib/console/get-replays-view";

type ReplayRunSummary = ReplaysView["runs"][number];

const OUTCOMES = ["processed", "ignored", "failed", "pending"] as const;

/** A run's filter as the explorer's conditions ("provider <name> · statuses failed, ignored"). */
function conditions(filter: Record<string, unknown>): string {
  const parts = Object.entries(filter).map(([name, value]) => `${name} ${Array.isArray(value) ? value.join(", ") : String(value)}`);
  return parts.join(" · ") || "all replayable events";
}

const column = dataColumns<ReplayRunSummary>();

function columnsFor(now: string) {
  return column.columns([
    column.accessor("id", { header: "Run", cell: (info) => <Link href={`/replays/${info.getValue()}`}>#{info.getValue()}</Link> }),
    column.accessor("createdAt", { header: "When", cell: (info) => <DisplayTime value={info.getValue()} now={now} /> }),
    column.accessor("actor", { header: "Who" }),
    column.accessor("filter", { header: "Filter", cell: (info) => <span className="mono">{conditions(info.getValue())}</span> }),
    column.accessor("replayed", {
      header: "Replayed",
      meta: { numeric: true },
      cell: (info) => `${info.getValue()} of ${info.row.original.expected}`,
    }),
    column.accessor("state", {
      header: "Run",
      cell: (info) => <StatusBadge status={info.getValue().status} explanation={info.getValue().label} reason={info.row.original.error} />,
    }),
    column.accessor("outcomes", {
      header: "Outcome now",
      cell: (info) => (
        <span className="row">
          {OUTCOMES.filter((status) => info.getValue()[status] > 0).map((status) => (
            <Link key={status} href={`/events?run=${info.row.original.id}&status=${status}`} data-outcome={status}>
              {info.getValue()[status]} {status}
            </Link>
          ))}
        </span>
      ),
    }),
  ]);
}

export function ReplayRunsTable({ runs, now, paging }: { runs: ReplayRunSummary[]; now: string; paging: DataTablePaging }) {
  return (
    <DataTable
      label="Replay runs"
      columns={columnsFor(now)}
      rows={runs}
      rowKey={(run) => String(run.id)}
      rowHref={(run) => `/replays/${run.id}`}
      rowProps={(run) => ({ "data-run": String(run.id) })}
      empty="No bulk replay yet. Filter the events explorer, then Replay these…"
      paging={paging}
    />
  );
}
