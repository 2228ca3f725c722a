// Words for people: a count put in a sentence, and a status as the console writes it. Console
// pages, client components, alerts and the CLI use these, so "1 failed event" and "partially
// refunded" read the same everywhere.

/** The word that agrees with `count`: `one` for exactly 1, `many` otherwise (0 included). */
export function agree(count: number, one: string, many: string): string {
  return count === 1 ? one : many;
}

/** "1 event", "0 events", "1,204 events"; `many` for irregular plurals ("1 delivery", "2 deliveries"). */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString("en-US")} ${agree(count, one, many)}`;
}

/** A status or reason code as words ("partially_refunded" -> "partially refunded"): badges, filters and totals use this one label. */
export function statusLabel(status: string): string {
  return status.replaceAll("_", " ");
}

const FACT_LABELS: Record<string, string> = {
  amount: "amount",
  currency: "currency",
  customerId: "customer id",
  customerEmail: "customer e-mail",
  account: "account",
};

/** A payment fact's name in facts_from as words ("customerEmail" -> "customer e-mail"): its sources and the timeline use this one label. */
export function factLabel(fact: string): string {
  return FACT_LABELS[fact] ?? fact;
}
