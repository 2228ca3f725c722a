import type { Queryable } from "../db/pool";
import {
  DELIVERY_STATUSES,
  deliveryFilterSchema,
  listDeliveries,
  type DeliveryFilter,
  type DeliveryRow,
} from "../destinations/list-deliveries";
import { getDestination, type Destination } from "../destinations/manage-destinations";

export type DestinationView = {
  destination: Pick<Destination, "id" | "name" | "url">;
  /** The filter the URL asks for (a filter it can't use shows every delivery). */
  filter: DeliveryFilter;
  statuses: readonly string[];
  deliveries: DeliveryRow[];
};

/** One destination's deliveries, filtered by the page's URL; null when there is no such destination. */
export async function getDestinationView(db: Queryable, id: number, params: Record<string, string>): Promise<DestinationView | null> {
  const destination = await getDestination(db, id);
  if (!destination) return null;
  const parsed = deliveryFilterSchema.safeParse(params);
  const filter = parsed.success ? parsed.data : {};
  return {
    destination: { id: destination.id, name: destination.name, url: destination.url },
    filter,
    statuses: DELIVERY_STATUSES,
    deliveries: await listDeliveries(db, destination.id, filter),
  };
}
