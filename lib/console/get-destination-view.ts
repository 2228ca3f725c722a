import type { Queryable } from "../db/pool";
import {
  getDestinationState,
  nextTry,
  type DestinationCondition,
  type DestinationState,
  type NextTry,
} from "../destinations/destination-state";
import { getAttempt, listAttempts, type AttemptDetail, type AttemptRow } from "../destinations/list-attempts";
import {
  DELIVERY_STATUSES,
  deliveryFilterSchema,
  listDeliveries,
  type DeliveryFilter,
  type DeliveryRow,
} from "../destinations/list-deliveries";
import type { Page } from "../destinations/page-of";
import { RESENDABLE } from "../destinations/resend-deliveries";
import { parseRowId } from "../request/input-schemas";
import { fromZonedInput, toZonedInput } from "../time/format-time";

const PAGE_SIZE = 25;

const CONDITION_LABELS: Record<DestinationCondition, string> = {
  healthy: "Healthy",
  retrying: "Failing: retrying",
  circuit_open: "Failing: circuit open",
  paused: "Paused",
  disabled: "Disabled",
};

/** A delivery as the page lists it: when it goes next, and whether it can be retried now or resent. */
export type DestinationDeliveryRow = DeliveryRow & { nextTry: NextTry | null; mayRetry: boolean; mayResend: boolean };

export type DestinationView = {
  state: DestinationState & { label: string };
  /** The filter the URL asks for (a filter it can't use shows every delivery); its times as the form's inputs show them. */
  filter: DeliveryFilter;
  inputs: { status: string; chargeId: string; from: string; to: string };
  statuses: readonly string[];
  /** The statuses a bulk resend takes. */
  resendable: readonly string[];
  deliveries: Page<DestinationDeliveryRow>;
  /** The attempts, of one delivery when the URL names it. */
  attempts: Page<AttemptRow> & { deliveryId: number | null };
  /** The attempt the inspector shows (`attempt` in the URL), if it is this destination's. */
  inspected: AttemptDetail | null;
};

const pageNumber = (value: string | undefined) => parseRowId(value) ?? 1;

/**
 * One destination during an incident, from the page's URL: its state, a page of its deliveries
 * (`status`, `chargeId`, `from`/`to` read on `zone`'s wall clock, `page`), a page of its attempts
 * (`delivery`, `attempts`) and the attempt inspected (`attempt`). Null when there is no such destination.
 */
export async function getDestinationView(
  db: Queryable,
  id: number,
  params: Record<string, string | undefined>,
  zone: string,
): Promise<DestinationView | null> {
  const state = await getDestinationState(db, id);
  if (!state) return null;
  const at = (value: string | undefined) => (value ? (fromZonedInput(value, zone) ?? undefined) : undefined);
  const parsed = deliveryFilterSchema.safeParse({
    status: params.status || undefined,
    chargeId: params.chargeId,
    from: at(params.from),
    to: at(params.to),
  });
  const filter = parsed.success ? parsed.data : {};
  const sendable = state.condition !== "paused" && state.condition !== "disabled";
  const deliveryId = parseRowId(params.delivery);
  const attemptId = parseRowId(params.attempt);
  const [deliveries, attempts, inspected] = await Promise.all([
    listDeliveries(db, id, filter, { page: pageNumber(params.page), pageSize: PAGE_SIZE }),
    listAttempts(db, id, { deliveryId: deliveryId ?? undefined }, { page: pageNumber(params.attempts), pageSize: PAGE_SIZE }),
    attemptId === null ? null : getAttempt(db, id, attemptId),
  ]);
  return {
    state: { ...state, label: CONDITION_LABELS[state.condition] },
    filter,
    inputs: {
      status: filter.status ?? "",
      chargeId: filter.chargeId ?? "",
      from: filter.from ? toZonedInput(filter.from, zone) : "",
      to: filter.to ? toZonedInput(filter.to, zone) : "",
    },
    statuses: DELIVERY_STATUSES,
    resendable: RESENDABLE,
    deliveries: {
      ...deliveries,
      rows: deliveries.rows.map((row) => ({
        ...row,
        nextTry: nextTry(row, state),
        mayRetry: sendable && row.status === "pending" && !row.leased && row.waitsForVersion === null,
        mayResend: (RESENDABLE as readonly string[]).includes(row.status),
      })),
    },
    attempts: { ...attempts, deliveryId },
    inspected,
  };
}
