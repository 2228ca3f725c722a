"use client";

import Link from "next/link";
import { DataTable, dataColumns } from "@/app/_components/data-table.client";
import type { ProviderRow } from "@/lib/console/get-overview-view";

const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;

const column = dataColumns<ProviderRow>();
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
  column.accessor((row) => row.events.hour, { id: "hour", header: "Stored, last hour", meta: { numeric: true } }),
  column.accessor((row) => row.events.day, { id: "day", header: "Stored, last 24 h", meta: { numeric: true } }),
  column.accessor((row) => row.events.week, { id: "week", header: "Stored, last 7 days", meta: { numeric: true } }),
  column.accessor((row) => row.week.processed, { id: "processed", header: "Processed, 7 days", meta: { numeric: true } }),
  column.accessor((row) => row.week.ignored, { id: "ignored", header: "Ignored, 7 days", meta: { numeric: true } }),
  column.accessor((row) => row.week.failed, { id: "failed", header: "Failed, 7 days", meta: { numeric: true } }),
  column.accessor((row) => row.week.pending, { id: "pending", header: "Pending, 7 days", meta: { numeric: true } }),
  column.accessor("hourIgnoredRatio", {
    header: "Ignored share, last hour",
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
  column.accessor((row) => row.week.ignoredRatio, {
    id: "ignoredRatio",
    header: "Ignored share, 7 days",
    meta: { numeric: true },
    cell: (info) => percent(info.getValue()),
  }),
  column.accessor((row) => row.week.failedRatio, {
    id: "failedRatio",
    header: "Failed share, 7 days",
    meta: { numeric: true },
    cell: (info) => percent(info.getValue()),
  }),
]);

/**
 * One row per provider: the events it stored over the last hour, 24 hours and 7 days, the 7 days'
 * by their status now and their shares, and the last hour's ignored share against the rest of its
 * week. Every header names its window (a count without one read as all time), wrapping at its
 * spaces so eleven of them fit 1440 px. On narrow screens each row is a card, so no ratio hides in a
 * scroll box.
 */
export function ProviderStatsTable({ rows }: { rows: ProviderRow[] }) {
  return (
    <div className="provider-stats">
      <DataTable
        label="Events stored per provider"
        columns={columns}
        rows={rows}
        rowKey={(row) => row.provider}
        rowProps={(row) => ({ "data-provider": row.provider })}
        empty="No events in the last 7 days. Gateways send webhooks to /api/webhooks/{provider}."
      />
    </div>
  );
}
