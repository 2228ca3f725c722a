import { can, type Role } from "../auth/permissions";
import type { Queryable } from "../db/pool";
import { countEvents } from "../inbox/queries/count-events";
import { listEvents } from "../inbox/queries/list-events";
import { customerSummary, type CustomerTotal } from "../payments/customer-summary";
import { shownCustomer } from "../privacy/shown-customer";
import { eventTableRows, type EventTableRow } from "./get-events-view";
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
};

const EVENTS_SHOWN = 50;

/** A customer's payments, totals and latest events as `role` may see them; null when no payment names them. */
export async function getCustomerView(db: Queryable, role: Role, reference: string, zone: string): Promise<CustomerPageView | null> {
  const summary = await customerSummary(db, reference);
  if (!summary) return null;
  const filter = { customer: reference };
  const [events, eventCount] = await Promise.all([listEvents(db, { filter, limit: EVENTS_SHOWN }), countEvents(db, filter, 10_000)]);
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
  };
}
