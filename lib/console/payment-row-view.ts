import { can, type Role } from "../auth/permissions";
import type { PaymentView } from "../payments/get-payment";
import { customerView, type CustomerView } from "../privacy/customer-view";

/** A payment in a console table: what the role may see of the customer, nothing else personal. */
export type PaymentRowView = Pick<
  PaymentView,
  "id" | "provider" | "chargeId" | "status" | "amount" | "amountRefunded" | "currency" | "updatedAt"
> &
  CustomerView & { events: number | null };

export function paymentRowView(role: Role, payment: PaymentView & { events?: number }): PaymentRowView {
  const { id, provider, chargeId, status, amount, amountRefunded, currency, updatedAt } = payment;
  return {
    ...{ id, provider, chargeId, status, amount, amountRefunded, currency, updatedAt },
    ...customerView(payment.customerEmail, can(role, "payload.unmasked")),
    events: payment.events ?? null,
  };
}
