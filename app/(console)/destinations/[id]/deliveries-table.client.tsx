"use client";

import Link from "next/link";
import { DataTable, dataColumns } from "@/app/_components/data-table.client";
import { DeliveryBadge } from "@/app/_components/delivery-badge";
import { DisplayTime } from "@/app/_components/display-time.client";
import { StatusBadge } from "@/app/_components/status-badge";
import type { DestinationView } from "@/lib/console/get-destination-view";

type DeliveryRow = DestinationView["deliveries"][number];
import { ResendButton } from "./resend-button.client";

const column = dataColumns<DeliveryRow>();
const columns = column.columns([
  column.accessor("changeId", {
    header: "Change",
    meta: { mono: true },
    cell: (info) => (
      <>
        {info.getValue()} v{info.row.original.version} <StatusBadge status={info.row.original.changeStatus} />
      </>
    ),
  }),
  column.accessor("chargeId", {
    header: "Payment",
    cell: (info) => (
      <Link href={`/payments/${info.row.original.paymentId}`} className="mono">
        {info.row.original.provider} {info.getValue()}
      </Link>
    ),
  }),
  column.accessor("status", { header: "Delivery", cell: (info) => <DeliveryBadge status={info.getValue()} /> }),
  column.accessor("attempts", { header: "Attempts", meta: { numeric: true } }),
  column.accessor("lastStatusCode", {
    header: "Last answer",
    cell: (info) => {
      const delivery = info.row.original;
      return (
        <>
          {delivery.lastStatusCode ?? (delivery.lastError ? "no answer" : "—")}
          {delivery.lastLatencyMs !== null ? <span className="muted"> {delivery.lastLatencyMs} ms</span> : null}
          {delivery.lastError ? <div className="muted">{delivery.lastError}</div> : null}
          {delivery.lastExcerpt ? <pre className="muted">{delivery.lastExcerpt}</pre> : null}
        </>
      );
    },
  }),
  column.accessor((delivery) => delivery.nextAttemptAt ?? delivery.finishedAt, {
    id: "next",
    header: "Next try / done",
    cell: (info) => <DisplayTime value={info.getValue()} />,
  }),
  column.display({
    id: "resend",
    header: "",
    cell: (info) =>
      info.row.original.status === "dead" ? (
        <ResendButton destinationId={info.row.original.destinationId} deliveryId={info.row.original.id} />
      ) : null,
  }),
]);

/** One destination's deliveries, newest first, with a resend for each dead one. */
export function DeliveriesTable({ deliveries }: { deliveries: DeliveryRow[] }) {
  return (
    <DataTable
      label="Deliveries"
      columns={columns}
      rows={deliveries}
      rowKey={(delivery) => String(delivery.id)}
      rowProps={(delivery) => ({ "data-testid": `delivery-${delivery.changeId}` })}
      empty="No deliveries match."
    />
  );
}
