import { formatMoney } from "@/lib/canonical/money";

/** An amount in minor units, formatted for its currency. */
export function Money({ amount, currency }: { amount: number | null; currency: string | null }) {
  if (amount === null) return <span className="muted">—</span>;
  return <span className="money">{formatMoney(amount, currency)}</span>;
}
