import type { Queryable } from "../db/pool";
import { destinationTableRow, listDestinationSummaries, type DestinationTableRow } from "../destinations/destination-stats";
import { PAYMENT_STATUSES } from "../payments/state-machine";
import { PROVIDER_NAMES } from "../providers/registry";

export type DestinationsView = {
  destinations: DestinationTableRow[];
  /** What a destination's filters may choose from. */
  providers: string[];
  statuses: string[];
};

/** The destinations page: each destination with its delivery figures, and the choices its form offers. */
export async function getDestinationsView(db: Queryable): Promise<DestinationsView> {
  const summaries = await listDestinationSummaries(db);
  return { destinations: summaries.map(destinationTableRow), providers: [...PROVIDER_NAMES], statuses: [...PAYMENT_STATUSES] };
}
