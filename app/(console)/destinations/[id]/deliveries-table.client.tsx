"use client";

import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { DataTable, dataColumns, type DataTablePaging } from "@/app/_components/data-table.client";
import { DeliveryBadge } from "@/app/_components/delivery-badge";
import { DisplayTime } from "@/app/_components/display-time.client";
import { StatusBadge } from "@/app/_components/status-badge";
import type { DestinationDeliveryRow } from "@/lib/console/get-destination-view";
import { ResendButton, RetryButton } from "./resend-button.client";

const column = dataColumns<DestinationDeliveryRow>();

/** The page's URL with some parameters changed (null removes one), for links inside its tables. */
export function useHrefWith() {
  const pathname = usePathname();
  const searchParams = useSearchParams();
  return (changes: Record<string, string | null>, hash = "") => {
    const params = new URLSearchParams(searchParams.toString());
    for (const [name, value] of Object.entries(changes)) {
      if (value === null) params.delete(name);
      else params.set(name, value);
    }
    return `${pathname}?${params.toString()}${hash}`;
  };
}

function NextTry({ delivery }: { delivery: DestinationDeliveryRow }) {
  const next = delivery.nextTry;
  if (!next) return <DisplayTime value={delivery.finishedAt} />;
  return (
    <>
      {next.at ? <DisplayTime value={next.at} /> : null}
      {next.waitsFor ? <div className="muted">{next.at ? `not before: ${next.waitsFor}` : `waits for ${next.waitsFor}`}</div> : null}
    </>
  );
}

/** One destination's deliveries, a page at a time: where each stands, when it goes next, and what can be done about it. */
export function DeliveriesTable({ deliveries, paging }: { deliveries: DestinationDeliveryRow[]; paging: DataTablePaging }) {
  const hrefWith = useHrefWith();
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
    column.accessor("attempts", {
      header: "Attempts",
      meta: { numeric: true },
      cell: (info) =>
        info.getValue() > 0 ? (
          <Link href={hrefWith({ delivery: String(info.row.original.id), attempts: null }, "#attempts")}>{info.getValue()}</Link>
        ) : (
          0
        ),
    }),
    column.accessor("lastStatusCode", {
      header: "Last answer",
      cell: (info) => {
        const delivery = info.row.original;
        return (
          <>
            {delivery.lastStatusCode ?? (delivery.lastError ? "no answer" : "—")}
            {delivery.lastLatencyMs !== null ? <span className="muted"> {delivery.lastLatencyMs} ms</span> : null}
            {delivery.lastError ? <div className="muted">{delivery.lastError}</div> : null}
          </>
        );
      },
    }),
    column.display({ id: "next", header: "Next try / done", cell: (info) => <NextTry delivery={info.row.original} /> }),
    column.display({
      id: "act",
      header: "",
      cell: (info) => {
        const delivery = info.row.original;
        if (delivery.mayRetry) return <RetryButton destinationId={delivery.destinationId} deliveryId={delivery.id} />;
        return delivery.mayResend ? (
          <ResendButton destinationId={delivery.destinationId} deliveryId={delivery.id} status={delivery.status} />
        ) : null;
      },
    }),
  ]);
  return (
    <DataTable
      label="Deliveries"
      columns={columns}
      rows={deliveries}
      rowKey={(delivery) => String(delivery.id)}
      rowProps={(delivery) => ({ "data-testid": `delivery-${delivery.changeId}` })}
      empty="No deliveries match."
      paging={paging}
    />
  );
}
