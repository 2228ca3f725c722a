"use client";

import Link from "next/link";
import { DataTable, dataColumns, type DataTablePaging } from "@/app/_components/data-table.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import type { DestinationView } from "@/lib/console/get-destination-view";
import { useHrefWith } from "./deliveries-table.client";

type AttemptRow = DestinationView["attempts"]["rows"][number];
const column = dataColumns<AttemptRow>();

/** Each POST to the destination, newest first, a page at a time; a row opens the inspector. */
export function AttemptsTable({
  attempts,
  paging,
  inspected,
}: {
  attempts: AttemptRow[];
  paging: DataTablePaging;
  inspected: number | null;
}) {
  const hrefWith = useHrefWith();
  const columns = column.columns([
    column.accessor("attemptedAt", { header: "Sent", cell: (info) => <DisplayTime value={info.getValue()} /> }),
    column.accessor("changeId", {
      header: "Change",
      meta: { mono: true },
      cell: (info) => `${info.getValue()} v${info.row.original.version}`,
    }),
    column.accessor("outcome", { header: "Outcome" }),
    column.accessor("statusCode", {
      header: "Status",
      cell: (info) => info.getValue() ?? <span className="muted">{info.row.original.error ?? "no answer"}</span>,
    }),
    column.accessor("latencyMs", { header: "Duration", meta: { numeric: true }, cell: (info) => `${info.getValue()} ms` }),
    column.display({
      id: "inspect",
      header: "",
      cell: (info) => (
        <Link
          href={hrefWith({ attempt: String(info.row.original.id) }, "#inspector")}
          aria-current={inspected === info.row.original.id ? "true" : undefined}
        >
          Inspect
        </Link>
      ),
    }),
  ]);
  return (
    <DataTable
      label="Attempts"
      columns={columns}
      rows={attempts}
      rowKey={(attempt) => String(attempt.id)}
      rowProps={(attempt) => ({ "data-testid": `attempt-${attempt.id}` })}
      empty="Nothing sent yet."
      paging={paging}
    />
  );
}
