import type { Metadata } from "next";
import Link from "next/link";
import { PaymentsTable } from "@/app/_components/payments-table";
import { requirePagePermission } from "@/app/_server/session";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { can } from "@/lib/auth/permissions";
import { searchPayments } from "@/lib/payments/search-payments";
import { storableTextSchema } from "@/lib/request/input-schemas";
import { maySearch, paymentView, SEARCH_NEEDS_SUPPORT } from "@/lib/privacy/views-for-role";
import { customerView } from "@/lib/privacy/customer-view";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const metadata: Metadata = { title: "Payments" };
export const dynamic = "force-dynamic";

export default async function PaymentsPage({ searchParams }: { searchParams: Promise<{ q?: string; page?: string }> }) {
  const user = await requirePagePermission(PAGE_ACCESS["/payments"]);
  const { q, page: pageParam } = await searchParams;
  const term = typeof q === "string" ? q.slice(0, 320) : undefined;
  const query = storableTextSchema.max(320).optional().safeParse(term);
  const problem = !query.success ? "This search holds characters no record can contain." : maySearch(user.role, { query: term }) ? null : SEARCH_NEEDS_SUPPORT;
  const result = problem ? { rows: [], total: 0, totalCapped: false, page: 1, pageSize: 1 } : await searchPayments(webRuntime().pool, term, { page: Number(pageParam) || 1 });
  const unmasked = can(user.role, "payload.unmasked");
  const rows = result.rows.map((payment) => ({ ...paymentView(user.role, payment), ...customerView(payment.customerEmail, unmasked) }));
  const pages = Math.max(1, Math.ceil(result.total / result.pageSize));
  const pageLink = (page: number) => `/payments?${new URLSearchParams({ ...(term ? { q: term } : {}), page: String(page) }).toString()}`;
  return (
    <>
      <h1>Payments</h1>
      <form className="panel filters" role="search" action="/payments">
        <label>
          Customer e-mail (or part of it), customer id or charge id
          <input name="q" type="search" defaultValue={term} size={40} data-search-box aria-keyshortcuts="/" placeholder="Press / to search" />
        </label>
        <button className="primary" type="submit">
          Search
        </button>
      </form>
      {problem ? (
        <p className="banner bad" role="alert">
          {problem}
        </p>
      ) : rows.length === 0 ? (
        <p className="panel muted">{term ? "No payment matches." : "No payments yet."}</p>
      ) : (
        <PaymentsTable rows={rows} now={new Date().toISOString()} label="Payments" />
      )}
      <nav className="pager" aria-label="Pages">
        {result.page > 1 ? (
          <Link href={pageLink(result.page - 1)} rel="prev">
            « Previous
          </Link>
        ) : (
          <span aria-disabled="true">« Previous</span>
        )}
        <span data-testid="payments-total">
          Page {result.page} of {result.totalCapped ? "many" : pages} · {result.total.toLocaleString("en-US")}
          {result.totalCapped ? "+" : ""} payment{result.total === 1 ? "" : "s"}
        </span>
        {result.page * result.pageSize < result.total ? (
          <Link href={pageLink(result.page + 1)} rel="next">
            Next »
          </Link>
        ) : (
          <span aria-disabled="true">Next »</span>
        )}
      </nav>
    </>
  );
}
