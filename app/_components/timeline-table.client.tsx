"use client";

import Link from "next/link";
import { Breakable } from "./breakable";
import type { EventPageView } from "@/lib/console/get-event-view";
import { DataTable, dataColumns } from "./data-table.client";
import { DisplayTime } from "./display-time.client";
import { RecoveredLabel } from "./recovered-label";
import { StatusBadge } from "./status-badge";
import { factLabel, statusLabel } from "@/lib/text/words";

type TimelineEntry = EventPageView["timeline"][number];

const column = dataColumns<TimelineEntry>();
const columns = column.columns([
  column.accessor("occurredAt", { header: "Occurred", cell: (info) => <DisplayTime value={info.getValue()} /> }),
  column.accessor("receivedAt", { header: "Received", cell: (info) => <DisplayTime value={info.getValue()} /> }),
  column.accessor("eventType", {
    header: "Type",
    cell: (info) => (
      <>
        <Link href={`/events/${info.row.original.id}`}>
          <Breakable text={info.getValue()} />
        </Link>
        {info.row.original.recovered ? <RecoveredLabel at={info.row.original.receivedAt} /> : null}
      </>
    ),
  }),
  column.accessor("status", {
    header: "Outcome",
    cell: (info) => <StatusBadge status={info.getValue()} reason={info.row.original.ignoredReason} />,
  }),
  column.accessor("applied", {
    header: "Effect",
    cell: (info) => {
      const applied = info.getValue();
      const { filled } = info.row.original;
      if (!applied && filled.length === 0) return <span className="muted">none</span>;
      return (
        <span>
          {applied ? (
            <>
              {statusLabel(applied.fromStatus ?? "new")} → <strong>{statusLabel(applied.toStatus)}</strong>
              {applied.source === "refetch" ? <span className="muted"> (refetched)</span> : null}
            </>
          ) : null}
          {filled.length > 0 ? (
            <span className={applied ? "muted" : undefined}>
              {applied ? "; " : ""}filled in {filled.map(factLabel).join(", ")}
            </span>
          ) : null}
        </span>
      );
    },
  }),
]);

/** A payment's events in the gateway's order, with what each applied or why it was ignored. */
export function TimelineTable({ entries, currentId }: { entries: TimelineEntry[]; currentId?: number }) {
  return (
    <DataTable
      label="Timeline"
      columns={columns}
      rows={entries}
      rowKey={(entry) => String(entry.id)}
      rowProps={(entry) => (entry.id === currentId ? { "aria-current": "true", className: "current" } : {})}
      empty="No events for this charge yet."
    />
  );
}
