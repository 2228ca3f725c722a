// What support types into a search box: a whole or partial e-mail, customer id, charge id (or, for
// events, event id). A fragment is first resolved to the few values it could mean, each kind read
// in index order from a text_pattern_ops b-tree (its start) or, for any other part, a trigram index:
// of the distinct e-mails (customer_emails), or of the id column itself, read a bounded number of
// rows deep. Each source is capped; then rows are found by those exact values. So a short fragment
// that would match hundreds of thousands of rows costs a few index probes, not a scan. The exact
// value sorts first among values it is a prefix of, so the cap never drops it.

export type SearchKind = "event" | "charge" | "email" | "customer";

/** How many values a fragment may stand for, per source. */
export const SEARCH_VALUES_CAP = 25;

// How many rows a trigram source reads for its values: a customer id recurs in dozens of payments,
// and a part of an id common to millions of rows must not read them all.
const INSIDE_ROWS_CAP = SEARCH_VALUES_CAP * 20;

// How many rows a probe (a term without its id word) may return to be checked against the whole term.
const PROBED_ROWS_CAP = INSIDE_ROWS_CAP * 20;

/** Below this length a term is matched whole only: a part of one or two characters means nothing. */
export const FRAGMENT_MIN_LENGTH = 3;

type Param = (value: unknown) => string;

/** A term as a LIKE pattern matches it literally (its %, _ and \ escaped). */
export const escapeLike = (term: string) => term.replace(/[\\%_]/g, (char) => `\\${char}`);

/**
 * The bound LIKE patterns of a term: ids as typed (their start) and, for a fragment, anywhere in
 * them whatever the case (read over the phone, an id's case is often lost); e-mails lowered and,
 * when the term can be a part of one, anywhere in one. `customers` is null for a role that may
 * search ids only (its patterns are never bound).
 */
export type SearchPatterns = {
  asIs: string;
  inside: InsidePattern | null;
  customers: { lowered: string; inside: string | null } | null;
};

/**
 * A part-of-an-id pattern: `whole` is what must match; `probe`, what the trigram index is asked for.
 * An id's leading word (`evt`, `ch`, `cus`, `pay` before the `_`) is in nearly every row of its
 * column, and the index reads its trigrams' posting lists whole, millions of entries at 10M rows: so
 * the index is probed without it and the rows it returns are checked against the whole term. In a
 * column where no value starts with that word (`cus_` among event ids), its trigrams are rare and
 * the whole term is asked instead: the part without the word would be common there, and read for
 * nothing. `word` is the LIKE pattern of a value starting with it; null when the term has none.
 */
export type InsidePattern = { whole: string; probe: string; word: string | null };

// Letters before an id's first separator: its type prefix (pg_trgm splits words at the `_`).
const LEADING_ID_WORD = /^[A-Za-z]+(?=_)/;

function insidePattern(term: string, param: Param): InsidePattern {
  const whole = param(`%${escapeLike(term)}%`);
  const word = LEADING_ID_WORD.exec(term)?.[0];
  const rest = word === undefined ? term : term.slice(word.length);
  return word !== undefined && rest.length >= FRAGMENT_MIN_LENGTH
    ? { whole, probe: param(`%${escapeLike(rest)}%`), word: param(`${escapeLike(`${word}_`)}%`) }
    : { whole, probe: whole, word: null };
}

export function searchPatterns(term: string, param: Param, idsOnly: boolean): SearchPatterns {
  const fragment = term.length >= FRAGMENT_MIN_LENGTH;
  const lower = term.toLowerCase();
  const asIs = param(fragment ? `${escapeLike(term)}%` : escapeLike(term));
  const inside = fragment ? insidePattern(term, param) : null;
  if (idsOnly) return { asIs, inside, customers: null };
  return {
    asIs,
    inside,
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
 * One value source read through a column's trigram index (ILIKE '%part%'): the distinct values of
 * at most INSIDE_ROWS_CAP matching rows (of those meeting `rows`, when the index is partial), the
 * first in text order (the index has none: so a term finds the same values every time). Given an
 * InsidePattern with a word, the index is asked for the probe when the column has values starting
 * with the word, and the whole term is tested on the rows it found (at most PROBED_ROWS_CAP), in an
 * outer query so that the planner neither reads the whole term's common trigrams from the index nor
 * estimates the scan from both patterns; otherwise it is asked for the whole term (which branch
 * runs is decided once, by one probe of the column's prefix b-tree).
 */
export function insideCandidates(table: string, column: string, pattern: InsidePattern | string, rows?: string): string {
  const where = rows ? `${rows} AND ` : "";
  const { whole, probe, word } = typeof pattern === "string" ? { whole: pattern, probe: pattern, word: null } : pattern;
  const asked = `SELECT ${column} AS v FROM ${table} WHERE ${where}${column} ILIKE ${whole}`;
  let probed = asked;
  if (word !== null && probe !== whole) {
    const wordIn = `EXISTS (SELECT FROM ${table} WHERE ${column} LIKE ${word})`;
    probed =
      `SELECT v FROM (SELECT ${column} AS v FROM ${table} WHERE ${where}${column} ILIKE ${probe} LIMIT ${PROBED_ROWS_CAP}) probed ` +
      `WHERE v ILIKE ${whole} AND ${wordIn} UNION ALL ${asked} AND NOT ${wordIn}`;
  }
  return `(SELECT DISTINCT v FROM (${probed} LIMIT ${INSIDE_ROWS_CAP}) rows ORDER BY v LIMIT ${SEARCH_VALUES_CAP})`;
}

// A condition on a column the id's prefix b-tree doesn't hold: with a LIMIT above it, the planner
// would otherwise walk that whole b-tree index-only, testing every id against the pattern (seconds
// at millions of payments), rather than ask the trigram index for the few that hold it.
const OUTSIDE_THE_PREFIX_INDEX = "id > 0";

/** A column's sources: its values starting with the term, and those containing it (a fragment). */
export function idCandidates(table: string, column: string, patterns: SearchPatterns, inside = true): string[] {
  const sources = [candidates(table, column, patterns.asIs, true)];
  if (inside && patterns.inside) {
    sources.push(insideCandidates(table, column, patterns.inside, OUTSIDE_THE_PREFIX_INDEX));
  }
  return sources;
}

/**
 * The payments' sources of values for each kind (subqueries yielding `v`). Ids only: charge ids (a
 * masked role may search ids, which are not personal data, but not customers).
 */
export function paymentValueSources(patterns: SearchPatterns): Partial<Record<Exclude<SearchKind, "event">, string[]>> {
  const sources: Partial<Record<Exclude<SearchKind, "event">, string[]>> = {
    charge: idCandidates("payments", "gateway_charge_id", patterns),
  };
  const { customers } = patterns;
  if (!customers) return sources;
  sources.email = [candidates("payments", "customer_email", customers.lowered, true)];
  if (customers.inside) sources.email.push(candidates("customer_emails", "email", customers.inside, false));
  sources.customer = idCandidates("payments", "customer_id", patterns);
  return sources;
}

/** Sources of one kind as one set of values. */
export const anyOfSources = (sources: string[]) => `SELECT v FROM (${sources.join(" UNION ")}) s`;
