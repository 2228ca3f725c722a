import { Money } from "@/app/_components/money";
import type { PaymentsView } from "@/lib/console/get-payments-view";

/** The filter's totals per currency: counts, charged and refunded, and how many by status. */
export function PaymentTotals({
  totals,
  capped = false,
  label,
  testId,
}: {
  totals: PaymentsView["totals"];
  capped?: boolean;
  label: string;
  testId: string;
}) {
  if (totals.length === 0) return null;
  return (
    <section className="panel" aria-label={label} data-testid={`${testId}s`}>
      <dl className="kv">
        {totals.map((total) => (
          <div key={total.currency ?? "none"} style={{ display: "contents" }}>
            <dt>{total.currency ? total.currency.toUpperCase() : "No amount yet"}</dt>
            <dd data-testid={`${testId}-${total.currency ?? "none"}`}>
              <strong>
                {total.payments.toLocaleString("en-US")} payment{total.payments === 1 ? "" : "s"}
              </strong>{" "}
              · <Money amount={total.amount} currency={total.currency} /> charged ·{" "}
              <Money amount={total.refunded} currency={total.currency} /> refunded ·{" "}
              <span className="muted">
                {Object.entries(total.byStatus)
                  .map(([status, count]) => `${count} ${status.replaceAll("_", " ")}`)
                  .join(", ")}
              </span>
            </dd>
          </div>
        ))}
      </dl>
      {capped ? <p className="muted">Summed over the first 250,000 matching payments: narrow the filter for exact totals.</p> : null}
    </section>
  );
}
