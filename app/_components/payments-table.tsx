import Link from "next/link";
import type { PaymentView } from "@/lib/payments/get-payment";
import { CustomerLink } from "./customer-link";
import { DisplayTime } from "./display-time.client";
import { Money } from "./money";
import { StatusBadge } from "./status-badge";

/** A payment row as a role may see it: the customer masked or not (and linkable only unmasked). */
export type PaymentTableRow = PaymentView & { events?: number; customerShown: string | null; customerRef: string | null };

/** Payments as a table that stacks into cards on narrow screens. */
export function PaymentsTable({ rows, now, label }: { rows: PaymentTableRow[]; now: string; label: string }) {
  const withEvents = rows.some((row) => row.events !== undefined);
  return (
    <table className="data stack" aria-label={label}>
      <thead>
        <tr>
          <th>Charge</th>
          <th>Status</th>
          <th className="num">Amount</th>
          <th className="num">Refunded</th>
          <th>Customer</th>
          {withEvents ? <th className="num">Events</th> : null}
          <th>Updated</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((payment) => (
          <tr key={payment.id} data-charge={payment.chargeId}>
            <td className="mono" data-label="Charge">
              <span className="muted">{payment.provider}</span> <Link href={`/payments/${payment.id}`}>{payment.chargeId}</Link>
            </td>
            <td data-label="Status">
              <StatusBadge status={payment.status} />
            </td>
            <td className="num" data-label="Amount">
              <Money amount={payment.amount} currency={payment.currency} />
            </td>
            <td className="num" data-label="Refunded">
              <Money amount={payment.amountRefunded} currency={payment.currency} />
            </td>
            <td data-label="Customer">
              <CustomerLink customerShown={payment.customerShown} customerRef={payment.customerRef} />
            </td>
            {withEvents ? (
              <td className="num" data-label="Events">
                {payment.events}
              </td>
            ) : null}
            <td data-label="Updated">
              <DisplayTime value={payment.updatedAt} now={now} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
