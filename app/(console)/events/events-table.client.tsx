"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { createColumnHelper, rowSortingFeature, tableFeatures, useTable, type SortingState } from "@tanstack/react-table";
import { LocalTime } from "@/app/_components/local-time.client";
import { StatusBadge } from "@/app/_components/status-badge";
import type { EventListRow } from "@/lib/inbox/list-events";

/** An explorer row as it crosses to the browser: times as ISO strings. */
export type EventTableRow = Omit<EventListRow, "occurredAt" | "receivedAt"> & { occurredAt: string | null; receivedAt: string };

const features = tableFeatures({ rowSortingFeature });
const helper = createColumnHelper<typeof features, EventTableRow>();

// Sorting is done by the server (keyset per sort); only these two columns have an index to sort on.
const SORTABLE: Record<string, "received" | "occurred"> = { receivedAt: "received", occurredAt: "occurred" };

const columns = helper.columns([
  helper.accessor("receivedAt", { header: "Received", cell: (info) => <LocalTime value={info.getValue()} /> }),
  helper.accessor("occurredAt", { header: "Occurred", cell: (info) => <LocalTime value={info.getValue()} /> }),
  helper.accessor("provider", { header: "Provider", enableSorting: false }),
  helper.accessor("eventType", {
    header: "Type",
    enableSorting: false,
    cell: (info) => <Link href={`/events/${info.row.original.id}`}>{info.getValue()}</Link>,
  }),
  helper.accessor("status", {
    header: "Status",
    enableSorting: false,
    cell: (info) => <StatusBadge status={info.getValue()} reason={info.row.original.ignoredReason} />,
  }),
  helper.accessor("resourceId", { header: "Charge", enableSorting: false, cell: (info) => <span className="mono">{info.getValue() ?? "—"}</span> }),
  helper.accessor("customerEmail", { header: "Customer", enableSorting: false, cell: (info) => info.getValue() ?? "—" }),
  helper.accessor("eventId", {
    header: "Event id",
    enableSorting: false,
    cell: (info) => (
      <span className="mono truncate" title={info.getValue()}>
        {info.getValue()}
      </span>
    ),
  }),
  helper.accessor("attempts", { header: "Tries", enableSorting: false, meta: { numeric: true } }),
  helper.accessor("lastError", {
    header: "Last error",
    enableSorting: false,
    cell: (info) => (
      <span className="truncate" title={info.getValue() ?? undefined} style={{ display: "inline-block" }}>
        {info.getValue() ?? ""}
      </span>
    ),
  }),
]);

/** The explorer's table: rows come from the server, sorting changes the URL. */
export function EventsTable({ rows, sort, baseQuery }: { rows: EventTableRow[]; sort: string; baseQuery: string }) {
  const router = useRouter();
  const [key, direction] = sort.split("_");
  const sorting: SortingState = [{ id: key === "occurred" ? "occurredAt" : "receivedAt", desc: direction === "desc" }];
  const table = useTable({
    features,
    columns,
    data: rows,
    state: { sorting },
    manualSorting: true,
    enableSortingRemoval: false,
    onSortingChange: (updater) => {
      const next = typeof updater === "function" ? updater(sorting) : updater;
      const first = next[0];
      if (!first || !SORTABLE[first.id]) return;
      const params = new URLSearchParams(baseQuery);
      params.set("sort", `${SORTABLE[first.id]}_${first.desc ? "desc" : "asc"}`);
      params.delete("cursor");
      router.push(`/events?${params.toString()}`);
    },
  });
  if (rows.length === 0) {
    return <p className="panel muted">No events match these filters.</p>;
  }
  return (
    <div style={{ overflowX: "auto" }}>
      <table className="data" aria-label="Events">
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const sortable = header.column.getCanSort() && SORTABLE[header.column.id] !== undefined;
                const sorted = header.column.getIsSorted();
                return (
                  <th key={header.id} aria-sort={sorted ? (sorted === "desc" ? "descending" : "ascending") : undefined}>
                    {sortable ? (
                      <button type="button" className="sort" onClick={header.column.getToggleSortingHandler()}>
                        <table.FlexRender header={header} /> {sorted === "desc" ? "▼" : sorted === "asc" ? "▲" : "↕"}
                      </button>
                    ) : (
                      <table.FlexRender header={header} />
                    )}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr key={row.id} data-event-id={row.original.id}>
              {row.getAllCells().map((cell) => (
                <td key={cell.id}>
                  <table.FlexRender cell={cell} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
