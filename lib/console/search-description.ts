import { amountReadings } from "../canonical/money";
import { FRAGMENT_MIN_LENGTH } from "../payments/search-values";

// What a list's search box matches, in words, from the same rules the queries follow
// (payments/search-values.ts): the box's label, the line saying what a search looked through, and
// the empty list's hint. A masked role searches ids (and amounts) only, and is told so.

export type SearchScope = "events" | "payments";

export type SearchDescription = {
  /** The search box's label: only what this role may search. */
  label: string;
  /** "Searched event ids, charge ids, customer ids containing 'c1jcw9'…", or null without a search. */
  searched: string | null;
  /** The empty list's sentence, with a hint when a search found nothing. */
  empty: string;
};

const list = (items: string[]) => (items.length < 2 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`);

function idKinds(scope: SearchScope, idsOnly: boolean): string[] {
  return [...(scope === "events" ? ["event ids"] : []), "charge ids", ...(idsOnly ? [] : ["customer ids"])];
}

const LABELS: Record<SearchScope, Record<"all" | "idsOnly", string>> = {
  events: { all: "Search (e-mail, event, charge or customer id)", idsOnly: "Search (event or charge id)" },
  payments: { all: "Search (e-mail, charge or customer id, or amount)", idsOnly: "Search (charge id or amount)" },
};

/** The search box, the searched line and the empty state of a list for a term (or none). */
export function describeSearch(scope: SearchScope, term: string | undefined, idsOnly: boolean): SearchDescription {
  const noun = scope === "events" ? "events" : "payments";
  const label = LABELS[scope][idsOnly ? "idsOnly" : "all"];
  if (!term) return { label, searched: null, empty: `No ${noun} match these filters.` };
  const quoted = `'${term}'`;
  const fragment = term.length >= FRAGMENT_MIN_LENGTH;
  const parts = [`${list(idKinds(scope, idsOnly))} ${fragment ? "containing" : "equal to"} ${quoted}`];
  if (!idsOnly) {
    const emails = !fragment ? "equal to it" : term.includes("@") ? "starting with it" : "starting with or containing it";
    parts.push(`customer e-mails ${emails}`);
  }
  const amount = scope === "payments" ? amountReadings(term) : null;
  if (amount) parts.push(`amounts of exactly ${term.trim().replace(",", ".")}`);
  const searched = `Searched ${parts.join("; ")}.`;
  const hints = [
    `ids match by any part of ${FRAGMENT_MIN_LENGTH} characters or more`,
    ...(idsOnly ? [] : ["e-mails by their start, or by a part without the @"]),
    ...(scope === "payments" ? ["amounts exactly (659.98)"] : []),
  ].join("; ");
  const next = fragment
    ? "Try fewer characters, or clear the other filters."
    : `Type at least ${FRAGMENT_MIN_LENGTH} characters, or clear the other filters.`;
  return { label, searched, empty: `No ${noun} match. ${hints.replace(/^./, (first) => first.toUpperCase())}. ${next}` };
}
