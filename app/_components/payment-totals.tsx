import { Money } from "@/app/_components/money";
import type { PaymentsView, PaymentMoney } from "@/lib/console/get-payments-view";
import { plural, statusLabel } from "@/lib/text/words";

/** Each figure of a total, in the order shown, with what it counts (docs/console.md, "Totals"). */
const FIGURES: { key: keyof PaymentMoney; label: string; meaning: string }[] = [
  {
    key: "captured",
    label: "captured",
    meaning: "Taken from customers: the amounts of paid, refunded, disputed and charged-back payments",
  },
  { key: "refunded", label: "refunded", meaning: "Given back by refunds" },
  { key: "disputed", label: "disputed", meaning: "Under an open dispute: still held, at risk" },
  { key: "chargedBack", label: "charged back", meaning: "Taken back by lost disputes" },
  { key: "net", label: "net", meaning: "Kept: captured less refunded less charged back" },
];

/** The filter's totals per currency: how many payments, the money captured and what became of it, and how many by status. */
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
    <section className="panel payment-totals" aria-label={label} data-testid={`${testId}s`}>
      <dl className="kv">
        {totals.map((total) => (
          <div key={total.currency ?? "none"} style={{ display: "contents" }}>
            <dt>{total.currency ? total.currency.toUpperCase() : "No amount yet"}</dt>
            <dd data-testid={`${testId}-${total.currency ?? "none"}`}>
              <strong>{plural(total.payments, "payment")}</strong>{" "}
              <span className="muted">
                (
                {Object.entries(total.byStatus)
                  .map(([status, count]) => `${count} ${statusLabel(status)}`)
                  .join(", ")}
                )
              </span>
              <ul className="figures">
                {FIGURES.map((figure) => (
                  <li key={figure.key} data-figure={figure.key}>
                    <span className="muted" title={figure.meaning}>
                      {figure.label}
                    </span>{" "}
                    <Money amount={total[figure.key]} currency={total.currency} />
                  </li>
                ))}
              </ul>
            </dd>
          </div>
        ))}
      </dl>
      {capped ? <p className="muted">Summed over the first 250,000 matching payments: narrow the filter for exact totals.</p> : null}
    </section>
  );
}
