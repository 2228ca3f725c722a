import { escapeLike } from "../../payments/search-payments";

// What support types into the events search: a whole or partial e-mail, customer id, charge id or
// event id. A fragment is first resolved to the few values it could mean (each kind read in index
// order from a text_pattern_ops b-tree or, for a part of an e-mail, the payments trigram index, and
// capped), then events are found by those exact values. So a short fragment that would match
// hundreds of thousands of events costs a few index probes, not a scan, and what it matched can be
// listed for the person searching. The exact value sorts first among values it is a prefix of, so
// the cap never drops it.

export type SearchKind = "event" | "charge" | "email" | "customer";

/** How many values a fragment may stand for, per kind. */
export const SEARCH_VALUES_CAP = 25;

// Below this length a term is matched whole only: a prefix of one or two characters means nothing.
const FRAGMENT_MIN_LENGTH = 3;

type Param = (value: unknown) => string;

/** One value source: a column of a table, read by prefix (or by part, for `contains`). */
function candidates(table: string, column: string, pattern: string, ordered: boolean): string {
  // `~<~` is the order of the text_pattern_ops index, so the scan stops after the cap.
  const order = ordered ? `ORDER BY ${column} USING ~<~ ` : "";
  return `(SELECT DISTINCT ${column} AS v FROM ${table} WHERE ${column} LIKE ${pattern} ${order}LIMIT ${SEARCH_VALUES_CAP})`;
}

/**
 * SQL for the values of each kind a term may mean (a subquery yielding column `v`), given the
 * caller's parameter binder. `idsOnly` keeps event and charge ids (a masked role may search ids,
 * which are not personal data, but not customers).
 */
export function searchValuesSql(term: string, param: Param, idsOnly: boolean): Partial<Record<SearchKind, string>> {
  const fragment = term.length >= FRAGMENT_MIN_LENGTH;
  const asIs = param(fragment ? `${escapeLike(term)}%` : escapeLike(term));
  const sql: Partial<Record<SearchKind, string>> = {
    event: candidates("webhook_inbox", "event_id", asIs, true),
    charge: `SELECT v FROM (${candidates("webhook_inbox", "resource_id", asIs, true)} UNION ${candidates("payments", "gateway_charge_id", asIs, true)}) charges`,
  };
  if (idsOnly) return sql;
  const lowered = param(fragment ? `${escapeLike(term.toLowerCase())}%` : escapeLike(term.toLowerCase()));
  const emails = [candidates("webhook_inbox", "customer_email", lowered, true), candidates("payments", "customer_email", lowered, true)];
  if (fragment && !term.includes("@"))
    emails.push(candidates("payments", "customer_email", param(`%${escapeLike(term.toLowerCase())}%`), false));
  sql.email = `SELECT v FROM (${emails.join(" UNION ")}) emails`;
  sql.customer = `SELECT v FROM (${candidates("webhook_inbox", "customer_id", asIs, true)} UNION ${candidates("payments", "customer_id", asIs, true)}) customers`;
  return sql;
}

/**
 * Inbox ids matching any of the values (of the kinds given): an event's own ids and customer, and
 * the events of payments that name the customer (a dispute or refund notice often names none).
 */
export function eventsOfValuesSql(values: Partial<Record<SearchKind, string>>): string[] {
  const lookups: string[] = [];
  if (values.event) lookups.push(`SELECT id FROM webhook_inbox WHERE event_id IN (${values.event})`);
  if (values.charge) lookups.push(`SELECT id FROM webhook_inbox WHERE resource_id IN (${values.charge})`);
  for (const [kind, column] of [
    ["email", "customer_email"],
    ["customer", "customer_id"],
  ] as const) {
    const set = values[kind];
    if (!set) continue;
    lookups.push(
      `SELECT id FROM webhook_inbox WHERE ${column} IN (${set})`,
      `SELECT w.id FROM payments p JOIN webhook_inbox w ON w.provider = p.provider AND w.resource_id = p.gateway_charge_id WHERE p.${column} IN (${set})`,
    );
  }
  return lookups;
}

/**
 * 0 for an event matched by the whole term, 1 for a fragment match. For an e-mail the whole term is
 * its local part ("customer7" and "customer7@exa" are customer7@example.com's, not customer70's).
 */
export function exactRankSql(term: string, param: Param, idsOnly: boolean): string {
  const whole = param(term);
  const exact = [`event_id = ${whole}`, `resource_id = ${whole}`];
  if (!idsOnly) {
    const local = param(term.toLowerCase().split("@")[0]);
    exact.push(
      `split_part(customer_email, '@', 1) = ${local}`,
      `customer_id = ${whole}`,
      `EXISTS (SELECT 1 FROM payments p WHERE p.provider = webhook_inbox.provider AND p.gateway_charge_id = webhook_inbox.resource_id
                  AND (split_part(p.customer_email, '@', 1) = ${local} OR p.customer_id = ${whole}))`,
    );
  }
  return `(CASE WHEN ${exact.join(" OR ")} THEN 0 ELSE 1 END)`;
}
