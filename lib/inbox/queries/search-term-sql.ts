import {
  anyOfSources,
  candidates,
  idCandidates,
  insideCandidates,
  paymentValueSources,
  searchPatterns,
  type SearchKind,
  type SearchPatterns,
} from "../../payments/search-values";
import { PENDING_ROWS, SETTLED_ROWS } from "./settled-search";

// The events search resolves a term as the payments search does (payments/search-values.ts), from
// the inbox's own columns as well as the payments'.

type Param = (value: unknown) => string;

/**
 * An inbox id column's sources: its values starting with the term (a b-tree of every row) and,
 * for a fragment, those containing it among settled events (the trigram index holds no others)
 * and among pending ones.
 */
function inboxIdCandidates(column: string, patterns: SearchPatterns): string[] {
  const sources = idCandidates("webhook_inbox", column, patterns, false);
  if (patterns.inside) {
    sources.push(
      insideCandidates("webhook_inbox", column, patterns.inside.whole, { probe: patterns.inside.probe, rows: SETTLED_ROWS }),
      insideCandidates("webhook_inbox", column, patterns.inside.whole, { rows: PENDING_ROWS }),
    );
  }
  return sources;
}

/**
 * SQL for the values of each kind a term may mean (a subquery yielding column `v`), given the
 * caller's parameter binder. `idsOnly` keeps event and charge ids.
 */
export function searchValuesSql(term: string, param: Param, idsOnly: boolean): Partial<Record<SearchKind, string>> {
  const patterns = searchPatterns(term, param, idsOnly);
  const payments = paymentValueSources(patterns);
  const sql: Partial<Record<SearchKind, string>> = {
    event: anyOfSources(inboxIdCandidates("event_id", patterns)),
    charge: anyOfSources([...inboxIdCandidates("resource_id", patterns), ...payments.charge!]),
  };
  if (!patterns.customers) return sql;
  sql.email = anyOfSources([candidates("webhook_inbox", "customer_email", patterns.customers.lowered, true), ...payments.email!]);
  // The inbox's customer ids by their start only (no trigram index there): the payments' by any part.
  sql.customer = anyOfSources([...idCandidates("webhook_inbox", "customer_id", patterns, false), ...payments.customer!]);
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
      // A scalar subquery, one probe of the payment's key per listed event: written as EXISTS,
      // PostgreSQL may hash it instead, reading every payment.
      `COALESCE((SELECT split_part(p.customer_email, '@', 1) = ${local} OR p.customer_id = ${whole} FROM payments p
                  WHERE p.provider = webhook_inbox.provider AND p.gateway_charge_id = webhook_inbox.resource_id), false)`,
    );
  }
  return `(CASE WHEN ${exact.join(" OR ")} THEN 0 ELSE 1 END)`;
}
