import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requirePageAccess } from "@/app/_server/session";
import { getDestinationView } from "@/lib/console/get-destination-view";
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
  await requirePageAccess("/destinations/[id]");
  const id = parseRowId((await params).id);
  const view = id === null ? null : await getDestinationView(webRuntime().pool, id, await searchParams);
  if (!view) notFound();
  const { destination, filter } = view;
  return (
    <>
      <h1>{destination.name}</h1>
      <p className="mono muted">{destination.url}</p>
      <form className="panel filters" method="get" aria-label="Filter deliveries">
        <label>
          Status
          <select name="status" defaultValue={filter.status ?? ""}>
            <option value="">any</option>
            {view.statuses.map((status) => (
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
      <DeliveriesTable deliveries={view.deliveries} />
    </>
  );
}
