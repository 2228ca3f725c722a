"use client";

import { DataTable, dataColumns } from "@/app/_components/data-table.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import type { AlertsView } from "@/lib/console/get-alerts-view";

type AlertStateRow = AlertsView["alerts"][number];

const column = dataColumns<AlertStateRow>();
const columns = column.columns([
  column.accessor("at", { header: "When", cell: (info) => <DisplayTime value={info.getValue()} /> }),
  column.accessor("state", {
    header: "State",
    cell: (info) => <span className={`badge ${info.getValue() === "active" ? "failed" : "processed"}`}>{info.getValue()}</span>,
  }),
  column.accessor("kind", { header: "Kind" }),
  column.accessor("provider", { header: "Provider" }),
  column.accessor("text", { header: "Message" }),
  column.accessor("delivered", {
    header: "Delivered",
    cell: (info) => (
      <span title={info.row.original.error ?? undefined}>
        {info.getValue() ? "yes" : `no${info.row.original.error ? `: ${info.row.original.error}` : ""}`}
      </span>
    ),
  }),
]);

export function AlertsTable({ alerts }: { alerts: AlertStateRow[] }) {
  return (
    <DataTable
      label="Alerts"
      columns={columns}
      rows={alerts}
      rowKey={(row) => String(row.id)}
      rowProps={(row) => ({ "data-kind": row.kind, "data-state": row.state })}
      empty="No alerts."
    />
  );
}
