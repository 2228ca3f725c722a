"use client";

import Link from "next/link";
import { Breakable } from "@/app/_components/breakable";
import { CustomerLink } from "@/app/_components/customer-link";
import { DataTable, dataColumns, type DataTablePaging, type DataTableSort } from "@/app/_components/data-table.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import { FullId } from "@/app/_components/full-id.client";
import { StatusBadge } from "@/app/_components/status-badge";
import type { EventTableRow } from "@/lib/console/get-events-view";

const column = dataColumns<EventTableRow>();

// Only the two times are sortable: the server pages by keyset on each, through its own index.
function columnsFor(now: string, withAccounts: boolean) {
  return column.columns([
    column.accessor("receivedAt", {
      header: "Received",
      meta: { sortKey: "received" },
      cell: (info) => <DisplayTime value={info.getValue()} now={now} />,
    }),
    column.accessor("occurredAt", {
      header: "Occurred",
      meta: { sortKey: "occurred" },
      cell: (info) => <DisplayTime value={info.getValue()} />,
    }),
    column.accessor("eventType", {
      header: "Type",
      cell: (info) => (
        <>
          <span className="muted">{info.row.original.provider}</span>{" "}
          <Link href={`/events/${info.row.original.id}`} tabIndex={-1}>
            <Breakable text={info.getValue()} />
          </Link>
        </>
      ),
    }),
    ...(withAccounts ? [column.accessor("account", { header: "Account", meta: { mono: true } })] : []),
    column.accessor("status", {
      header: "Status",
      cell: (info) => (
        <StatusBadge status={info.getValue()} reason={info.row.original.ignoredReason} explanation={info.row.original.explanation} />
      ),
    }),
    column.accessor("resourceId", {
      header: "Charge",
      cell: (info) => {
        const paymentId = info.row.original.paymentId;
        return <FullId value={info.getValue()} label="charge" href={paymentId ? `/payments/${paymentId}` : null} />;
      },
    }),
    column.accessor("customerShown", {
      header: "Customer",
      cell: (info) => <CustomerLink customerShown={info.getValue()} customerRef={info.row.original.customerRef} />,
    }),
    column.accessor("eventId", { header: "Event id", cell: (info) => <FullId value={info.getValue()} label="event id" /> }),
    column.accessor("attempts", { header: "Tries", meta: { numeric: true } }),
  ]);
}

/** Events as the explorer and the customer page list them; a row opens its event. */
export function EventsTable({
  rows,
  now,
  sort,
  paging,
  empty = "No events match these filters.",
}: {
  rows: EventTableRow[];
  now: string;
  empty?: string;
  sort?: DataTableSort;
  paging?: DataTablePaging;
}) {
  return (
    <DataTable
      label="Events"
      columns={columnsFor(
        now,
        rows.some((row) => row.accountNamed),
      )}
      rows={rows}
      rowKey={(row) => String(row.id)}
      empty={empty}
      sort={sort}
      paging={paging}
      rowHref={(row) => `/events/${row.id}`}
      rowProps={(row) => ({ "data-event-id": String(row.id), "aria-label": `${row.provider} ${row.eventType}, ${row.status}` })}
    />
  );
}
