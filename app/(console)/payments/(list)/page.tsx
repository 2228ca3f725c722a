import type { Metadata } from "next";
import Link from "next/link";
import { ListHeader } from "@/app/_components/list-header";
import { PaymentsTable } from "@/app/_components/payments-table.client";
import type { SearchParams } from "@/lib/console/event-filter-params";
import { paramsFromPaymentFilter, parsePaymentParams, paymentFilterChoices } from "@/lib/console/payment-filter-params";
import { requirePageAccess } from "@/app/_server/session";
import { getPaymentsView } from "@/lib/console/get-payments-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { PaymentFilters } from "../payment-filters";
import { PaymentTotals } from "@/app/_components/payment-totals";
import { plural } from "@/lib/text/words";

export const metadata: Metadata = { title: "Payments" };
export const dynamic = "force-dynamic";

export default async function PaymentsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await requirePageAccess("/payments");
  const parsed = parsePaymentParams(await searchParams);
  if (!parsed.ok) {
    return (
      <>
        <h1>Payments</h1>
        <p className="banner bad" role="alert">
          This link&apos;s filter can&apos;t be used: {parsed.message}. <Link href="/payments">Show all payments</Link>
        </p>
      </>
    );
  }
  const { reads, config } = webRuntime();
  const view = await reads.read((pool) => getPaymentsView(pool, user.role, parsed.filter, parsed));
  if (!view.ok) {
    return (
      <>
        <h1>Payments</h1>
        <PaymentFilters filter={parsed.filter} sort={parsed.sort} choices={paymentFilterChoices(config)} searchLabel={view.search.label} />
        <p className="banner bad" role="alert">
          {view.message}
        </p>
      </>
    );
  }
  const query = paramsFromPaymentFilter(parsed.filter, parsed.sort);
  const pageLink = (page: number) => `/payments?${new URLSearchParams([...query, ["page", String(page)]]).toString()}`;
  const pages = Math.max(1, Math.ceil(view.total / view.pageSize));
  const [sortKey, direction] = parsed.sort.split("_");
  return (
    <>
      <ListHeader title="Payments" exportHref={`/api/exports/payments?${query.toString()}`} exportTestId="export-payments" />
      <PaymentFilters filter={parsed.filter} sort={parsed.sort} choices={paymentFilterChoices(config)} searchLabel={view.search.label} />
      {view.search.searched ? (
        <p className="muted sentence" data-testid="searched">
          {view.search.searched}
        </p>
      ) : null}
      <PaymentTotals totals={view.totals} capped={view.totalsCapped} label="Totals for this filter" testId="payment-total" />
      <PaymentsTable
        rows={view.rows}
        now={new Date().toISOString()}
        label="Payments"
        empty={view.search.searched ? view.search.empty : query.size ? "No payment matches this filter." : "No payments yet."}
        sort={{ key: sortKey!, desc: direction === "desc" }}
        paging={{
          testId: "payments-total",
          summary: `Page ${view.page} of ${view.totalCapped ? "many" : pages} · ${view.totalCapped ? `${view.total.toLocaleString("en-US")}+ payments` : plural(view.total, "payment")}`,
          prevHref: view.page > 1 ? pageLink(view.page - 1) : null,
          nextHref: view.page * view.pageSize < view.total ? pageLink(view.page + 1) : null,
        }}
      />
    </>
  );
}
