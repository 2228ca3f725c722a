import { can, type Role } from "../auth/permissions";
import { DEFAULT_ACCOUNT } from "../canonical/gateway-account";
import type { PaymentRecord } from "../payments/get-payment";
import { shownCustomer, type ShownCustomer } from "../privacy/shown-customer";
import { declineSentence } from "./decline-words";

/** A payment in a console table: what the role may see of the customer, nothing else personal. */
export type PaymentTableRow = Pick<
  PaymentRecord,
  "id" | "provider" | "account" | "chargeId" | "status" | "amount" | "amountRefunded" | "currency" | "updatedAt"
> &
  ShownCustomer & {
    events: number | null;
    /** The payment names an account besides the default one (tables show the column only then). */
    accountNamed: boolean;
    /** Why the gateway refused it, in words; null when none is known. */
    decline: string | null;
  };

export function paymentTableRow(role: Role, payment: PaymentRecord & { events?: number }): PaymentTableRow {
  const { id, provider, account, chargeId, status, amount, amountRefunded, currency, updatedAt } = payment;
  return {
    ...{ id, provider, account, chargeId, status, amount, amountRefunded, currency, updatedAt },
    ...shownCustomer(payment.customerEmail, can(role, "payload.unmasked")),
    events: payment.events ?? null,
    accountNamed: account !== DEFAULT_ACCOUNT,
    decline: declineSentence(payment.declineReason),
  };
}
