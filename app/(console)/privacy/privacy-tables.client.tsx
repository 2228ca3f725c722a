"use client";

import Link from "next/link";
import { DataTable, dataColumns, type DataTablePaging } from "@/app/_components/data-table.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import { Money } from "@/app/_components/money";
import { StatusBadge } from "@/app/_components/status-badge";
import type { ErasedPayment, ErasureListRow } from "@/lib/console/get-privacy-view";

/** Counts per table and archive, as a dry run or an erasure reports them. */
type CountRow = { name: string; count: number };

const countColumn = dataColumns<CountRow>();
const countColumns = countColumn.columns([
  countColumn.accessor("name", { header: "Table or archive", meta: { mono: true } }),
  countColumn.accessor("count", { header: "Rows", meta: { numeric: true } }),
]);

export function CountsTable({ label, counts, empty }: { label: string; counts: Record<string, number>; empty: string }) {
  const rows = Object.entries(counts).map(([name, count]) => ({ name, count }));
  return <DataTable label={label} columns={countColumns} rows={rows} rowKey={(row) => row.name} empty={empty} />;
}

const archiveColumn = dataColumns<{ file: string; events: number }>();
const archiveColumns = archiveColumn.columns([
  archiveColumn.accessor("file", { header: "Archive file", meta: { mono: true } }),
  archiveColumn.accessor("events", { header: "Subject's events", meta: { numeric: true } }),
]);

export function ArchivesTable({ archives }: { archives: { file: string; events: number }[] }) {
  return (
    <DataTable
      label="Archive files to rewrite"
      columns={archiveColumns}
      rows={archives}
      rowKey={(row) => row.file}
      empty="No archive file holds the subject."
    />
  );
}

const paymentColumn = dataColumns<ErasedPayment>();
const paymentColumns = paymentColumn.columns([
  paymentColumn.accessor("provider", { header: "Provider" }),
  paymentColumn.accessor("chargeId", { header: "Charge", meta: { mono: true } }),
  paymentColumn.accessor("status", { header: "Status", cell: (info) => <StatusBadge status={info.getValue()} /> }),
  paymentColumn.accessor("amount", {
    header: "Amount",
    meta: { numeric: true },
    cell: (info) => <Money amount={info.getValue()} currency={info.row.original.currency} />,
  }),
]);

/** The payments an erasure changes: their customer goes, their amounts, statuses and history stay. */
export function ErasedPaymentsTable({ label, payments }: { label: string; payments: ErasedPayment[] }) {
  return (
    <DataTable
      label={label}
      columns={paymentColumns}
      rows={payments}
      rowKey={(row) => `${row.provider}:${row.chargeId}`}
      empty="No payment of the subject."
    />
  );
}

const erasureColumn = dataColumns<ErasureListRow>();
const erasureColumns = erasureColumn.columns([
  erasureColumn.accessor("id", {
    header: "Erasure",
    cell: (info) => <Link href={`/privacy/erasures/${info.getValue()}`}>#{info.getValue()}</Link>,
  }),
  erasureColumn.accessor("createdAt", { header: "Asked", cell: (info) => <DisplayTime value={info.getValue()} /> }),
  erasureColumn.accessor("actor", { header: "By" }),
  erasureColumn.accessor("subjectKind", {
    header: "Named by",
    cell: (info) => `${info.getValue()}${info.row.original.provider ? ` (${info.row.original.provider})` : ""}`,
  }),
  erasureColumn.accessor("status", { header: "State", cell: (info) => <StatusBadge status={info.getValue()} /> }),
  erasureColumn.accessor("payments", { header: "Payments", meta: { numeric: true } }),
  erasureColumn.accessor("finishedAt", {
    header: "Finished",
    cell: (info) => <DisplayTime value={info.getValue()} />,
  }),
]);

export function ErasuresTable({ rows, paging }: { rows: ErasureListRow[]; paging: DataTablePaging }) {
  return (
    <DataTable
      label="Erasures"
      columns={erasureColumns}
      rows={rows}
      rowKey={(row) => String(row.id)}
      rowHref={(row) => `/privacy/erasures/${row.id}`}
      empty="No erasure yet."
      paging={paging}
    />
  );
}
