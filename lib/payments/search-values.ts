// What support types into a search box: a whole or partial e-mail, customer id, charge id (or, for
// events, event id). A fragment is first resolved to the few values it could mean, each kind read
// in index order from a text_pattern_ops b-tree or, for a part of an e-mail, the trigram index of
// the distinct e-mails (customer_emails), and capped; then rows are found by those exact values. So
// a short fragment that would match hundreds of thousands of rows costs a few index probes, not a
// scan. The exact value sorts first among values it is a prefix of, so the cap never drops it.

export type SearchKind = "event" | "charge" | "email" | "customer";

/** How many values a fragment may stand for, per source. */
export const SEARCH_VALUES_CAP = 25;

// Below this length a term is matched whole only: a prefix of one or two characters means nothing.
const FRAGMENT_MIN_LENGTH = 3;

type Param = (value: unknown) => string;

/** A term as a LIKE pattern matches it literally (its %, _ and \ escaped). */
export const escapeLike = (term: string) => term.replace(/[\\%_]/g, (char) => `\\${char}`);

/**
 * The bound LIKE patterns of a term: ids as typed; e-mails lowered and, when the term can be a part
 * of one, anywhere in one. `customers` is null for a role that may search ids only (its patterns are
 * never bound).
 */
export type SearchPatterns = { asIs: string; customers: { lowered: string; inside: string | null } | null };

export function searchPatterns(term: string, param: Param, idsOnly: boolean): SearchPatterns {
  const fragment = term.length >= FRAGMENT_MIN_LENGTH;
  const lower = term.toLowerCase();
  const asIs = param(fragment ? `${escapeLike(term)}%` : escapeLike(term));
  if (idsOnly) return { asIs, customers: null };
  return {
    asIs,
    customers: {
      lowered: param(fragment ? `${escapeLike(lower)}%` : escapeLike(lower)),
      inside: fragment && !term.includes("@") ? param(`%${escapeLike(lower)}%`) : null,
    },
  };
}

/** One value source: a column of a table, read by prefix (or by part, for `contains`). */
export function candidates(table: string, column: string, pattern: string, ordered: boolean): string {
  // `~<~` is the order of the text_pattern_ops index, so the scan stops after the cap.
  const order = ordered ? `ORDER BY ${column} USING ~<~ ` : "";
  return `(SELECT DISTINCT ${column} AS v FROM ${table} WHERE ${column} LIKE ${pattern} ${order}LIMIT ${SEARCH_VALUES_CAP})`;
}

/**
 * The payments' sources of values for each kind (subqueries yielding `v`). Ids only: charge ids (a
 * masked role may search ids, which are not personal data, but not customers).
 */
export function paymentValueSources(patterns: SearchPatterns): Partial<Record<Exclude<SearchKind, "event">, string[]>> {
  const sources: Partial<Record<Exclude<SearchKind, "event">, string[]>> = {
    charge: [candidates("payments", "gateway_charge_id", patterns.asIs, true)],
  };
  const { customers } = patterns;
  if (!customers) return sources;
  sources.email = [candidates("payments", "customer_email", customers.lowered, true)];
  if (customers.inside) sources.email.push(candidates("customer_emails", "email", customers.inside, false));
  sources.customer = [candidates("payments", "customer_id", patterns.asIs, true)];
  return sources;
}

/** Sources of one kind as one set of values. */
export const anyOfSources = (sources: string[]) => `SELECT v FROM (${sources.join(" UNION ")}) s`;
