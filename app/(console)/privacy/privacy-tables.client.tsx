"use client";

import Link from "next/link";
import { DataTable, dataColumns, type DataTablePaging } from "@/app/_components/data-table.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import { Money } from "@/app/_components/money";
import { StatusBadge } from "@/app/_components/status-badge";
import type { ErasedPayment, ErasureListRow } from "@/lib/console/get-privacy-view";
import { NAMED_BY } from "./named-by";

/** Counts per table and archive, as a dry run or an erasure reports them. */
type CountRow = { name: string; what: string; count: number };

/** What each count is, in the order a reader follows the subject: their events, payments, then what others wrote about them. */
const COUNTED: Record<string, string> = {
  inbox_events: "stored events whose body, headers or customer name them",
  archived_events: "events kept in retention archive files",
  archive_files: "retention archive files rewritten",
  partition_events: "events of archived months",
  partition_archives: "archived months' files rewritten",
  payments: "payments whose customer goes (amounts and history stay)",
  payment_changes: "recorded versions of those payments (the feed)",
  customer_emails: "e-mails in the customer search",
  delivery_attempts: "pushes to destinations: answers, headers, errors",
  deliveries: "deliveries whose last error quotes them",
  processing_attempts: "processing errors quoting them",
  replay_runs: "bulk replays filtered on them",
  audit_log: "audit entries whose details name them",
  signature_failures: "rejected deliveries naming them",
};
const ORDER = Object.keys(COUNTED);

const countColumn = dataColumns<CountRow>();
const countColumns = countColumn.columns([
  countColumn.accessor("name", { header: "Where", meta: { mono: true } }),
  countColumn.accessor("what", { header: "What changes" }),
  countColumn.accessor("count", { header: "Count", meta: { numeric: true } }),
]);

/**
 * The places with something to change, one row each, and a line naming those with nothing (where
 * the erasure looked too): a dozen rows of zeros would hide the few that matter.
 */
export function CountsTable({
  label,
  counts,
  empty,
  nothingIn,
}: {
  label: string;
  counts: Record<string, number>;
  empty: string;
  /** The words before the places with nothing ("Nothing to change in"). */
  nothingIn: string;
}) {
  const rank = (name: string) => (ORDER.includes(name) ? ORDER.indexOf(name) : ORDER.length);
  const all = Object.entries(counts)
    .map(([name, count]) => ({ name, what: COUNTED[name] ?? "", count }))
    .sort((a, b) => rank(a.name) - rank(b.name));
  const none = all.filter((row) => row.count === 0).map((row) => row.name);
  return (
    <>
      <DataTable label={label} columns={countColumns} rows={all.filter((row) => row.count > 0)} rowKey={(row) => row.name} empty={empty} />
      {none.length > 0 ? (
        <p className="muted" data-testid="nothing-in">
          {nothingIn}:{" "}
          {none.map((name, index) => (
            <span key={name}>
              {index > 0 ? ", " : null}
              <code>{name}</code>
            </span>
          ))}
          .
        </p>
      ) : null}
    </>
  );
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
  paymentColumn.accessor("chargeId", {
    header: "Charge",
    meta: { mono: true },
    cell: (info) => <Link href={`/payments/${info.row.original.id}`}>{info.getValue()}</Link>,
  }),
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
    cell: (info) =>
      `${NAMED_BY[info.getValue()] ?? info.getValue()}${info.row.original.provider ? ` of ${info.row.original.provider}` : ""}`,
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
