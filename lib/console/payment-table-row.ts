import { can, type Role } from "../auth/permissions";
import type { PaymentRecord } from "../payments/get-payment";
import { shownCustomer, type ShownCustomer } from "../privacy/shown-customer";

/** A payment in a console table: what the role may see of the customer, nothing else personal. */
export type PaymentTableRow = Pick<
  PaymentRecord,
  "id" | "provider" | "chargeId" | "status" | "amount" | "amountRefunded" | "currency" | "updatedAt"
> &
  ShownCustomer & { events: number | null };

export function paymentTableRow(role: Role, payment: PaymentRecord & { events?: number }): PaymentTableRow {
  const { id, provider, chargeId, status, amount, amountRefunded, currency, updatedAt } = payment;
  return {
    ...{ id, provider, chargeId, status, amount, amountRefunded, currency, updatedAt },
    ...shownCustomer(payment.customerEmail, can(role, "payload.unmasked")),
    events: payment.events ?? null,
  };
}
