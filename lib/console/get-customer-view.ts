import { can, type Role } from "../auth/permissions";
import type { Queryable } from "../db/pool";
import { countEvents } from "../inbox/queries/count-events";
import { listEvents } from "../inbox/queries/list-events";
import { customerSummary, type CustomerTotal } from "../payments/customer-summary";
import { shownCustomer } from "../privacy/shown-customer";
import { paramsFromFilter } from "./event-filter-params";
import { eventTableRows, type EventTableRow } from "./get-events-view";
import { plural } from "../text/words";
import { paymentTableRow, type PaymentTableRow } from "./payment-table-row";

export type CustomerPageView = {
  reference: string;
  emails: string[];
  customerIds: string[];
  totals: CustomerTotal[];
  payments: PaymentTableRow[];
  events: EventTableRow[];
  eventCount: { total: number; atLeast: boolean };
  moreEvents: boolean;
  /** "3 events for this customer have no payment yet", linking to them in the explorer; null when none. */
  withoutPayment: { sentence: string; href: string } | null;
};

const EVENTS_SHOWN = 50;

/**
 * A customer's payments, totals and latest events as `role` may see them; null when neither a
 * payment nor an event without one names them.
 */
export async function getCustomerView(db: Queryable, role: Role, reference: string, zone: string): Promise<CustomerPageView | null> {
  const filter = { customer: reference };
  // Events naming the customer whose charge has no payment: the payments table can't show them.
  const orphanFilter = { ...filter, withoutPayment: true };
  const [found, orphans] = await Promise.all([customerSummary(db, reference), countEvents(db, orphanFilter, 10_000)]);
  if (!found && orphans.total === 0) return null;
  const email = reference.includes("@");
  const summary = found ?? { emails: email ? [reference] : [], customerIds: email ? [] : [reference], totals: [], payments: [] };
  const [events, eventCount] = await Promise.all([listEvents(db, { filter, limit: EVENTS_SHOWN }), countEvents(db, filter, 10_000)]);
  const one = orphans.total === 1 && !orphans.atLeast;
  const unmasked = can(role, "payload.unmasked");
  return {
    reference,
    emails: summary.emails.map((email) => shownCustomer(email, unmasked).customerShown ?? ""),
    customerIds: unmasked ? summary.customerIds : [],
    totals: summary.totals,
    payments: summary.payments.map((payment) => paymentTableRow(role, payment)),
    events: await eventTableRows(db, role, events.rows, zone),
    eventCount: { total: eventCount.total, atLeast: eventCount.atLeast },
    moreEvents: events.nextCursor !== null,
    withoutPayment:
      orphans.total > 0
        ? {
            sentence: `${orphans.atLeast ? "More than " : ""}${plural(orphans.total, "event")} for this customer ${one ? "has" : "have"} no payment yet`,
            href: `/events?${paramsFromFilter(orphanFilter).toString()}`,
          }
        : null,
  };
}
