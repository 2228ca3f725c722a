"use client";

import Link from "next/link";
import { DataTable, dataColumns } from "@/app/_components/data-table.client";
import type { ProviderWindowRow } from "@/lib/console/get-overview-view";

const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;

const column = dataColumns<ProviderWindowRow>();
const columns = column.columns([
  column.accessor("provider", {
    header: "Provider",
    cell: (info) => (
      <>
        <Link href={`/events?provider=${info.getValue()}`}>{info.getValue()}</Link>
        {info.row.original.ignoredJump ? <span className="badge failed"> ignored jump</span> : null}
      </>
    ),
  }),
  column.accessor("window", { header: "Window", cell: (info) => `last ${info.getValue()}` }),
  column.accessor("total", { header: "Events", meta: { numeric: true } }),
  column.accessor("processed", { header: "Processed", meta: { numeric: true } }),
  column.accessor("ignored", { header: "Ignored", meta: { numeric: true } }),
  column.accessor("failed", { header: "Failed", meta: { numeric: true } }),
  column.accessor("pending", { header: "Pending", meta: { numeric: true } }),
  column.accessor("ignoredRatio", {
    header: "Ignored ratio",
    meta: { numeric: true },
    cell: (info) => (
      <>
        {percent(info.getValue())}
        {info.row.original.baselineIgnoredRatio !== null ? (
          <span className="muted"> (rest of week {percent(info.row.original.baselineIgnoredRatio)})</span>
        ) : null}
      </>
    ),
  }),
  column.accessor("failedRatio", { header: "Failed ratio", meta: { numeric: true }, cell: (info) => percent(info.getValue()) }),
]);

/** Events per provider by window; on narrow screens each row is a card, so no ratio hides in a scroll box. */
export function ProviderStatsTable({ rows }: { rows: ProviderWindowRow[] }) {
  return (
    <DataTable
      label="Events per provider by window"
      columns={columns}
      rows={rows}
      rowKey={(row) => `${row.provider}-${row.window}`}
      rowProps={(row) => ({ "data-provider": row.provider, "data-window": row.window })}
      empty="No events in the last 7 days. Gateways send webhooks to /api/webhooks/{provider}."
    />
  );
}
