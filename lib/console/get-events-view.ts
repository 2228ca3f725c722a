import { can, type Role } from "../auth/permissions";
import { DEFAULT_ACCOUNT } from "../canonical/gateway-account";
import type { Queryable } from "../db/pool";
import { countEvents } from "../inbox/queries/count-events";
import type { EventFilter } from "../inbox/queries/event-filter";
import { explainOutcomes } from "../inbox/queries/explain-outcome";
import { listEvents, type EventListRow, type EventSort } from "../inbox/queries/list-events";
import { paymentsOfCharges } from "../payments/customer-summary";
import { shownCustomer, type ShownCustomer } from "../privacy/shown-customer";
import { maskEventRow, searchesIdsOnly, searchRefusal } from "../privacy/mask-for-role";
import { describeSearch, type SearchDescription } from "./search-description";

/**
 * An explorer row as a role may see it: the customer masked or not (and the reference to link to,
 * for roles that see it unmasked), the outcome in words, the payment's id when one exists.
 */
export type EventTableRow = Omit<EventListRow, "customerEmail"> &
  ShownCustomer & { explanation: string | null; paymentId: number | null; accountNamed: boolean };

export type EventsView =
  | { ok: false; message: string; search: SearchDescription }
  | {
      ok: true;
      rows: EventTableRow[];
      total: number;
      atLeast: boolean;
      nextCursor: string | null;
      prevCursor: string | null;
      serverMs: number;
      /** The role may replay what it sees (the page offers a bulk replay of the filter). */
      mayReplay: boolean;
      /** What the search box offers, what a search looked through, and the empty list's hint. */
      search: SearchDescription;
    };

// Counting stops here (unless the rollup answers exactly): the page never scans the whole inbox.
const COUNT_CAP = 10_000;

/** Explorer rows as `role` may see them: customers from the event or its payment, outcomes explained. */
export async function eventTableRows(db: Queryable, role: Role, stored: EventListRow[], zone: string): Promise<EventTableRow[]> {
  const unmasked = can(role, "payload.unmasked");
  const [explanations, payments] = await Promise.all([
    explainOutcomes(
      db,
      stored.filter((row) => row.status === "ignored" || row.status === "failed").map((row) => row.id),
      zone,
    ),
    paymentsOfCharges(
      db,
      stored.flatMap((row) => (row.resourceId ? [{ provider: row.provider, chargeId: row.resourceId }] : [])),
    ),
  ]);
  return stored.map((original) => {
    const { customerEmail: _masked, ...row } = maskEventRow(role, original);
    const payment = payments.get(`${row.provider}/${row.resourceId}`);
    return {
      ...row,
      // A dispute or refund notice often names no customer: its payment does.
      ...shownCustomer(original.customerEmail ?? payment?.email ?? null, unmasked),
      paymentId: payment?.id ?? null,
      accountNamed: row.account !== DEFAULT_ACCOUNT,
      // A failure's sentence quotes its error, which a masked role sees only as a category.
      explanation: unmasked || row.status === "ignored" ? (explanations.get(row.id) ?? null) : null,
    };
  });
}

/** One page of the events explorer for `role`, with the total matching the filter. */
export async function getEventsView(
  db: Queryable,
  role: Role,
  input: { filter: EventFilter; sort: EventSort; cursor?: string; before?: string; pageSize: number; zone: string },
): Promise<EventsView> {
  const search = describeSearch("events", input.filter.search, searchesIdsOnly(role));
  const refusal = searchRefusal(role, input.filter);
  if (refusal) return { ok: false, message: refusal, search };
  const filter = { ...input.filter, searchIdsOnly: searchesIdsOnly(role) };
  const started = performance.now();
  const [page, matching] = await Promise.all([
    listEvents(db, { filter, sort: input.sort, cursor: input.cursor, before: input.before, limit: input.pageSize }),
    countEvents(db, filter, COUNT_CAP),
  ]);
  const serverMs = Math.round(performance.now() - started);
  const rows = await eventTableRows(db, role, page.rows, input.zone);
  return {
    ok: true,
    rows,
    total: matching.total,
    atLeast: matching.atLeast,
    nextCursor: page.nextCursor,
    prevCursor: page.prevCursor,
    serverMs,
    mayReplay: can(role, "events.replay"),
    search,
  };
}
