/** An amount in minor units, formatted for its currency (unknown currencies as plain numbers). */
export function Money({ amount, currency }: { amount: number | null; currency: string | null }) {
  if (amount === null) return <span className="muted">—</span>;
  if (!currency) return <span>{amount}</span>;
  try {
    return <span>{new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(amount / 100)}</span>;
  } catch {
    return (
      <span>
        {amount} {currency}
      </span>
    );
  }
}
