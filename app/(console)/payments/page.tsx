import type { Metadata } from "next";
import Link from "next/link";
import { LocalTime } from "@/app/_components/local-time.client";
import { Money } from "@/app/_components/money";
import { StatusBadge } from "@/app/_components/status-badge";
import { requirePagePermission } from "@/app/_server/session";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { searchPayments } from "@/lib/payments/search-payments";
import { storableTextSchema } from "@/lib/http/input-schemas";
import { maySearch, paymentView, SEARCH_NEEDS_SUPPORT } from "@/lib/privacy/views-for-role";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const metadata: Metadata = { title: "Payments" };
export const dynamic = "force-dynamic";

export default async function PaymentsPage({ searchParams }: { searchParams: Promise<{ q?: string }> }) {
  const user = await requirePagePermission(PAGE_ACCESS["/payments"]);
  const { q } = await searchParams;
  const query = storableTextSchema.max(320).optional().safeParse(q);
  const problem = !query.success ? "This search holds characters no record can contain." : maySearch(user.role, { query: q }) ? null : SEARCH_NEEDS_SUPPORT;
  const payments = problem ? [] : (await searchPayments(webRuntime().pool, q)).map((payment) => paymentView(user.role, payment));
  return (
    <>
      <h1>Payments</h1>
      <form className="panel filters" role="search" action="/payments">
        <label>
          Customer e-mail or id, or charge id
          <input name="q" type="search" defaultValue={q} size={40} />
        </label>
        <button className="primary" type="submit">
          Search
        </button>
      </form>
      {problem ? (
        <p className="banner bad" role="alert">
          {problem}
        </p>
      ) : payments.length === 0 ? (
        <p className="panel muted">{q ? "No payment matches." : "No payments yet."}</p>
      ) : (
        <table className="data" aria-label="Payments">
          <thead>
            <tr>
              <th>Charge</th>
              <th>Provider</th>
              <th>Status</th>
              <th className="num">Amount</th>
              <th className="num">Refunded</th>
              <th>Customer</th>
              <th className="num">Events</th>
              <th>Updated</th>
            </tr>
          </thead>
          <tbody>
            {payments.map((payment) => (
              <tr key={payment.id}>
                <td className="mono">
                  <Link href={`/payments/${payment.id}`}>{payment.chargeId}</Link>
                </td>
                <td>{payment.provider}</td>
                <td>
                  <StatusBadge status={payment.status} />
                </td>
                <td className="num">
                  <Money amount={payment.amount} currency={payment.currency} />
                </td>
                <td className="num">
                  <Money amount={payment.amountRefunded} currency={payment.currency} />
                </td>
                <td>{payment.customerEmail ?? "—"}</td>
                <td className="num">{payment.events}</td>
                <td>
                  <LocalTime value={payment.updatedAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
