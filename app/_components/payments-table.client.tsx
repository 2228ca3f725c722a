"use client";

import Link from "next/link";
import { CustomerLink } from "./customer-link";
import { DataTable, dataColumns, type DataTablePaging, type DataTableSort } from "./data-table.client";
import { DisplayTime } from "./display-time.client";
import { Money } from "./money";
import { StatusBadge } from "./status-badge";
import type { PaymentTableRow } from "@/lib/console/payment-table-row";

const column = dataColumns<PaymentTableRow>();

function columnsFor(now: string, withEvents: boolean, withAccounts: boolean) {
  return column.columns([
    column.accessor("chargeId", {
      header: "Charge",
      meta: { mono: true },
      cell: (info) => (
        <>
          <span className="muted">{info.row.original.provider}</span>{" "}
          <Link href={`/payments/${info.row.original.id}`}>{info.getValue()}</Link>
        </>
      ),
    }),
    ...(withAccounts ? [column.accessor("account", { header: "Account", meta: { mono: true } })] : []),
    column.accessor("status", {
      header: "Status",
      cell: (info) => (
        <>
          <StatusBadge status={info.getValue()} />
          {info.row.original.decline ? (
            <span className="muted decline-note" title={info.row.original.decline} data-testid="row-decline">
              {info.row.original.decline}
            </span>
          ) : null}
        </>
      ),
    }),
    column.accessor("amount", {
      header: "Amount",
      meta: { numeric: true, sortKey: "amount" },
      cell: (info) => <Money amount={info.getValue()} currency={info.row.original.currency} />,
    }),
    column.accessor("amountRefunded", {
      header: "Refunded",
      meta: { numeric: true },
      cell: (info) => <Money amount={info.getValue()} currency={info.row.original.currency} />,
    }),
    column.accessor("customerShown", {
      header: "Customer",
      cell: (info) => <CustomerLink customerShown={info.getValue()} customerRef={info.row.original.customerRef} />,
    }),
    ...(withEvents ? [column.accessor("events", { header: "Events", meta: { numeric: true } })] : []),
    column.accessor("updatedAt", {
      header: "Updated",
      meta: { sortKey: "updated" },
      cell: (info) => <DisplayTime value={info.getValue()} now={now} />,
    }),
  ]);
}

/** Payments as the payments list and the customer page show them. */
export function PaymentsTable(props: {
  rows: PaymentTableRow[];
  now: string;
  label: string;
  empty: string;
  sort?: DataTableSort;
  paging?: DataTablePaging;
}) {
  const withEvents = props.rows.some((row) => row.events !== null);
  return (
    <DataTable
      label={props.label}
      columns={columnsFor(
        props.now,
        withEvents,
        props.rows.some((row) => row.accountNamed),
      )}
      rows={props.rows}
      rowKey={(row) => String(row.id)}
      empty={props.empty}
      sort={props.sort}
      paging={props.paging}
      rowHref={(row) => `/payments/${row.id}`}
      rowProps={(row) => ({ "data-charge": row.chargeId, "data-status": row.status })}
    />
  );
}
