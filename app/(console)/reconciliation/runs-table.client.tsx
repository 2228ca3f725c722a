"use client";

import { DataTable, dataColumns } from "@/app/_components/data-table.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import type { ReconciliationView } from "@/lib/console/get-reconciliation-view";

type ReconcileRunRow = ReconciliationView["runs"][number];

const COUNTS: [string, "listed" | "missingIngested" | "repaired" | "stuckRefetched" | "errors"][] = [
  ["Listed", "listed"],
  ["Missed events", "missingIngested"],
  ["Repaired", "repaired"],
  ["Stuck refetched", "stuckRefetched"],
  ["Errors", "errors"],
];

const column = dataColumns<ReconcileRunRow>();
const columns = column.columns([
  column.accessor("startedAt", { header: "Started", cell: (info) => <DisplayTime value={info.getValue()} /> }),
  column.accessor((run) => (run.account === "default" ? run.provider : `${run.provider} / ${run.account}`), {
    id: "gateway",
    header: "Gateway",
  }),
  column.accessor((run) => run.actor ?? run.trigger, { id: "by", header: "By" }),
  column.accessor("windowStart", {
    header: "Window",
    cell: (info) => (
      <>
        <DisplayTime value={info.getValue()} /> – <DisplayTime value={info.row.original.windowEnd} />
      </>
    ),
  }),
  column.accessor("status", {
    header: "Status",
    cell: (info) => <span title={info.row.original.lastError ?? undefined}>{info.getValue()}</span>,
  }),
  ...COUNTS.map(([label, field]) => column.accessor(field, { header: label, meta: { numeric: true } })),
]);

/** The latest runs (schedule, CLI, console), newest first. */
export function RunsTable({ runs }: { runs: ReconcileRunRow[] }) {
  return (
    <DataTable
      label="Runs"
      columns={columns}
      rows={runs}
      rowKey={(run) => String(run.id)}
      rowProps={() => ({ "data-testid": "reconcile-run" })}
      empty="No runs yet."
    />
  );
}
