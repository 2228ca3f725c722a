"use client";

import { Breakable } from "@/app/_components/breakable";
import { DataTable, dataColumns } from "@/app/_components/data-table.client";
import { DeliveryBadge } from "@/app/_components/delivery-badge";
import { DisplayTime } from "@/app/_components/display-time.client";
import type { PaymentChangesView } from "@/lib/console/get-payment-changes-view";
import { plural, statusLabel } from "@/lib/text/words";

type PaymentChangeRow = PaymentChangesView["changes"][number];

const column = dataColumns<PaymentChangeRow>();
const columns = column.columns([
  column.accessor("version", {
    header: "Version",
    meta: { mono: true },
    cell: (info) => (
      <>
        v{info.getValue()} <span className="muted">{info.row.original.changeId}</span>
      </>
    ),
  }),
  column.accessor("status", {
    header: "Change",
    cell: (info) => (
      <>
        {statusLabel(info.row.original.previousStatus ?? "new")} → <strong>{statusLabel(info.getValue())}</strong>
      </>
    ),
  }),
  column.accessor("eventType", {
    header: "Cause",
    meta: { mono: true },
    cell: (info) => (
      <>
        <Breakable text={info.getValue() ?? ""} /> <span className="muted">{info.row.original.eventId}</span>
      </>
    ),
  }),
  column.accessor("committedAt", { header: "Committed", cell: (info) => <DisplayTime value={info.getValue()} /> }),
  column.accessor("deliveries", {
    header: "Deliveries",
    cell: (info) =>
      info.getValue().length === 0 ? (
        <span className="muted">none</span>
      ) : (
        info.getValue().map((delivery) => (
          <div key={delivery.id}>
            {delivery.destinationName}: <DeliveryBadge status={delivery.status} />{" "}
            <span className="muted">
              {plural(delivery.attempts, "attempt")}
              {delivery.lastStatusCode ? `, last ${delivery.lastStatusCode}` : ""}
            </span>
          </div>
        ))
      ),
  }),
]);

/** The changes this payment's events made, as told to the host application, with each delivery per destination. */
export function PaymentChangesTable({ changes }: { changes: PaymentChangeRow[] }) {
  return (
    <DataTable label="Changes" columns={columns} rows={changes} rowKey={(change) => String(change.changeId)} empty="No changes yet." />
  );
}
