"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import type { KeyboardEvent } from "react";
import { createColumnHelper, rowSortingFeature, tableFeatures, useTable, type SortingState } from "@tanstack/react-table";
import { Breakable } from "@/app/_components/breakable";
import { CustomerLink } from "@/app/_components/customer-link";
import { DisplayTime } from "@/app/_components/display-time.client";
import { ShortId } from "@/app/_components/short-id.client";
import { StatusBadge } from "@/app/_components/status-badge";
import type { EventListRow } from "@/lib/inbox/queries/list-events";

/**
 * An explorer row as it crosses to the browser: times as ISO strings, the customer as the viewer may
 * see it (and the reference to link to, for roles that see it unmasked), the outcome in words.
 */
export type EventTableRow = Omit<EventListRow, "occurredAt" | "receivedAt" | "customerEmail"> & {
  occurredAt: string | null;
  receivedAt: string;
  customerShown: string | null;
  customerRef: string | null;
  explanation: string | null;
};

const features = tableFeatures({ rowSortingFeature });
const helper = createColumnHelper<typeof features, EventTableRow>();

// Sorting is done by the server (keyset per sort); only these two columns have an index to sort on.
const SORTABLE: Record<string, "received" | "occurred"> = { receivedAt: "received", occurredAt: "occurred" };

function columnsFor(now: string) {
  return helper.columns([
    helper.accessor("receivedAt", { header: "Received", cell: (info) => <DisplayTime value={info.getValue()} now={now} /> }),
    helper.accessor("occurredAt", { header: "Occurred", cell: (info) => <DisplayTime value={info.getValue()} /> }),
    helper.accessor("eventType", {
      header: "Type",
      enableSorting: false,
      cell: (info) => (
        <>
          <span className="muted">{info.row.original.provider}</span>{" "}
          <Link href={`/events/${info.row.original.id}`} tabIndex={-1}>
            <Breakable text={info.getValue()} />
          </Link>
        </>
      ),
    }),
    helper.accessor("status", {
      header: "Status",
      enableSorting: false,
      cell: (info) => <StatusBadge status={info.getValue()} reason={info.row.original.ignoredReason} explanation={info.row.original.explanation} />,
    }),
    helper.accessor("resourceId", { header: "Charge", enableSorting: false, cell: (info) => <ShortId value={info.getValue()} label="charge" /> }),
    helper.accessor("customerShown", {
      header: "Customer",
      enableSorting: false,
      cell: (info) => <CustomerLink customerShown={info.getValue()} customerRef={info.row.original.customerRef} />,
    }),
    helper.accessor("eventId", { header: "Event id", enableSorting: false, cell: (info) => <ShortId value={info.getValue()} label="event id" /> }),
    helper.accessor("attempts", { header: "Tries", enableSorting: false }),
  ]);
}

/** Arrow keys move between rows, Enter opens the focused row's event. */
function onRowKey(event: KeyboardEvent<HTMLTableRowElement>, open: () => void) {
  if (event.target !== event.currentTarget) return;
  const row = event.currentTarget;
  if (event.key === "Enter") {
    event.preventDefault();
    open();
  } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
    event.preventDefault();
    const next = (event.key === "ArrowDown" ? row.nextElementSibling : row.previousElementSibling) as HTMLElement | null;
    next?.focus();
  }
}

/** The explorer's table: rows come from the server, sorting changes the URL. */
export function EventsTable({ rows, sort, baseQuery, now }: { rows: EventTableRow[]; sort: string; baseQuery: string; now: string }) {
  const router = useRouter();
  const [key, direction] = sort.split("_");
  const sorting: SortingState = [{ id: key === "occurred" ? "occurredAt" : "receivedAt", desc: direction === "desc" }];
  const table = useTable({
    features,
    columns: columnsFor(now),
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
    <div className="table-wrap">
      <table className="data stack" aria-label="Events">
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const sortable = header.column.getCanSort() && SORTABLE[header.column.id] !== undefined;
                const sorted = header.column.getIsSorted();
                return (
                  <th key={header.id} aria-sort={sorted ? (sorted === "desc" ? "descending" : "ascending") : undefined}>
                    {sortable ? (
                      <button type="button" className="sort" tabIndex={sorted ? 0 : -1} onClick={header.column.getToggleSortingHandler()}>
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
          {table.getRowModel().rows.map((row) => {
            const open = () => router.push(`/events/${row.original.id}`);
            return (
              <tr
                key={row.id}
                data-event-id={row.original.id}
                tabIndex={0}
                aria-label={`${row.original.provider} ${row.original.eventType}, ${row.original.status}`}
                onKeyDown={(event) => onRowKey(event, open)}
              >
                {row.getAllCells().map((cell) => (
                  <td key={cell.id} data-label={String(cell.column.columnDef.header)} data-col={cell.column.id}>
                    <table.FlexRender cell={cell} />
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
