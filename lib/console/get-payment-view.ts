import { can, type Role } from "../auth/permissions";
import type { Queryable } from "../db/pool";
import { resourceTimeline, type TimelineEntry } from "../inbox/queries/get-event";
import { getPaymentById, type PaymentView } from "../payments/get-payment";
import { customerView, type CustomerView } from "../privacy/customer-view";
import { paymentView } from "../privacy/views-for-role";

export type PaymentPageView = {
  payment: Omit<PaymentView, "customerEmail">;
  customer: CustomerView;
  timeline: TimelineEntry[];
};

/** One payment with its timeline as `role` may see it; null when there is no such payment. */
export async function getPaymentView(db: Queryable, role: Role, id: number): Promise<PaymentPageView | null> {
  const stored = await getPaymentById(db, id);
  if (!stored) return null;
  const { customerEmail: _masked, ...payment } = paymentView(role, stored);
  return {
    payment,
    customer: customerView(stored.customerEmail, can(role, "payload.unmasked")),
    timeline: await resourceTimeline(db, stored.provider, stored.chargeId),
  };
}
