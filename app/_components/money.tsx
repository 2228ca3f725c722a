/** An amount in minor units, formatted for its currency (unknown currencies as plain numbers). */
export function Money({ amount, currency }: { amount: number | null; currency: string | null }) {
  if (amount === null) return <span className="muted">—</span>;
  if (!currency) return <span className="money">{amount}</span>;
  try {
    return (
      <span className="money">
        {new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(amount / 100)}
      </span>
    );
  } catch {
    return (
      <span className="money">
        {amount} {currency}
      </span>
    );
  }
}
