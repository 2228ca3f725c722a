"use client";

import Link from "next/link";
import { DataTable, dataColumns } from "@/app/_components/data-table.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import type { SignaturesView } from "@/lib/console/get-signatures-view";

type Row = SignaturesView["failures"][number];

const column = dataColumns<Row>();
const columns = column.columns([
  column.accessor("receivedAt", { header: "Received", cell: (info) => <DisplayTime value={info.getValue()} /> }),
  column.accessor("provider", { header: "Provider" }),
  // The account whose URL it came to: with many accounts, the one whose secret to check.
  column.accessor("account", { header: "Account", cell: (info) => info.getValue() ?? "—" }),
  column.accessor("reason", { header: "Reason" }),
  column.accessor("bodyBytes", { header: "Bytes", meta: { numeric: true } }),
  column.display({
    id: "debug",
    header: "Debug",
    cell: (info) => <Link href={`/signatures?failure=${info.row.original.id}`}>Open in debugger</Link>,
  }),
]);

export function RejectedWebhooksTable({ rows }: { rows: Row[] }) {
  return (
    <DataTable label="Rejected webhooks" columns={columns} rows={rows} rowKey={(row) => String(row.id)} empty="No rejected webhooks." />
  );
}
