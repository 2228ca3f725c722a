import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requirePagePermission } from "@/app/_server/session";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { getDestination } from "@/lib/destinations/manage-destinations";
import { DELIVERY_STATUSES, deliveryFilterSchema, listDeliveries } from "@/lib/destinations/list-deliveries";
import { parseRowId } from "@/lib/request/input-schemas";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { DeliveriesTable } from "./deliveries-table.client";

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
      <DeliveriesTable deliveries={deliveries} />
    </>
  );
}
