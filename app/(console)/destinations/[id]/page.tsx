import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { DeliveryBadge } from "@/app/_components/delivery-badge";
import { DisplayTime } from "@/app/_components/display-time.client";
import { StatusBadge } from "@/app/_components/status-badge";
import { requirePagePermission } from "@/app/_server/session";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { getDestination } from "@/lib/destinations/manage-destinations";
import { DELIVERY_STATUSES, deliveryFilterSchema, listDeliveries } from "@/lib/destinations/list-deliveries";
import { parseRowId } from "@/lib/request/input-schemas";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { ResendButton } from "./resend-button.client";

export const metadata: Metadata = { title: "Deliveries" };
export const dynamic = "force-dynamic";

export default async function DestinationPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string>>;
}) {
  await requirePagePermission(PAGE_ACCESS["/destinations/[id]"]);
  const id = parseRowId((await params).id);
  const { pool } = webRuntime();
  const destination = id === null ? null : await getDestination(pool, id);
  if (!destination) notFound();
  const parsed = deliveryFilterSchema.safeParse(await searchParams);
  const filter = parsed.success ? parsed.data : {};
  const deliveries = await listDeliveries(pool, destination.id, filter);
  return (
    <>
      <h1>{destination.name}</h1>
      <p className="mono muted">{destination.url}</p>
      <form className="panel filters" method="get" aria-label="Filter deliveries">
        <label>
          Status
          <select name="status" defaultValue={filter.status ?? ""}>
            <option value="">any</option>
            {DELIVERY_STATUSES.map((status) => (
              <option key={status}>{status}</option>
            ))}
          </select>
        </label>
        <label>
          Charge id
          <input name="chargeId" defaultValue={filter.chargeId ?? ""} />
        </label>
        <button type="submit">Filter</button>
      </form>
      <table className="data stack" aria-label="Deliveries">
        <thead>
          <tr>
            <th>Change</th>
            <th>Payment</th>
            <th>Delivery</th>
            <th>Attempts</th>
            <th>Last answer</th>
            <th>Next try / done</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => (
            <tr key={delivery.id} data-testid={`delivery-${delivery.changeId}`}>
              <td data-label="Change" className="mono">
                {delivery.changeId} v{delivery.version} <StatusBadge status={delivery.changeStatus} />
              </td>
              <td data-label="Payment">
                <Link href={`/payments/${delivery.paymentId}`} className="mono">
                  {delivery.provider} {delivery.chargeId}
                </Link>
              </td>
              <td data-label="Delivery">
                <DeliveryBadge status={delivery.status} />
              </td>
              <td data-label="Attempts">{delivery.attempts}</td>
              <td data-label="Last answer">
                {delivery.lastStatusCode ?? (delivery.lastError ? "no answer" : "—")}
                {delivery.lastLatencyMs !== null ? <span className="muted"> {delivery.lastLatencyMs} ms</span> : null}
                {delivery.lastError ? <div className="muted">{delivery.lastError}</div> : null}
                {delivery.lastExcerpt ? <pre className="muted">{delivery.lastExcerpt}</pre> : null}
              </td>
              <td data-label="Next try / done">
                <DisplayTime value={delivery.nextAttemptAt ?? delivery.finishedAt} />
              </td>
              <td>
                {delivery.status === "dead" ? <ResendButton destinationId={delivery.destinationId} deliveryId={delivery.id} /> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {deliveries.length === 0 ? <p className="muted">No deliveries match.</p> : null}
    </>
  );
}
