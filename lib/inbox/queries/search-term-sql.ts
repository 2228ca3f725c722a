import {
  anyOfSources,
  escapeLike,
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

/** A payment (p) joined to its events (w): those whose charge id is the payment's. */
export const PAYMENT_EVENTS = "payments p JOIN webhook_inbox w ON w.provider = p.provider AND w.resource_id = p.gateway_charge_id";

/**
 * An inbox id column's sources: its values starting with the term (a b-tree of every row) and,
 * for a fragment, those containing it among settled events (the trigram index holds no others)
 * and among pending ones.
 */
function inboxIdCandidates(column: string, patterns: SearchPatterns): string[] {
  const sources = idCandidates("webhook_inbox", column, patterns, false);
  if (patterns.inside) {
    sources.push(
      insideCandidates("webhook_inbox", column, patterns.inside, SETTLED_ROWS),
      insideCandidates("webhook_inbox", column, patterns.inside.whole, PENDING_ROWS),
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
 * The keys (id, received_at) and provider of events matching any of the values (of the kinds
 * given): an event's own ids and customer, and the events of payments that name the customer (a
 * dispute or refund notice often names none), as one subquery (an event may come more than once).
 * A customer's or e-mail's values are found once (materialized) for the two lookups that use them.
 * With the partition key beside the id, each event is read from its own month's partition, not
 * looked for in every one.
 */
export function eventsOfValuesSql(values: Partial<Record<SearchKind, string>>): string {
  const found: string[] = [];
  const lookups: string[] = [];
  if (values.event) lookups.push(`SELECT id, received_at, provider FROM webhook_inbox WHERE event_id IN (${values.event})`);
  if (values.charge) lookups.push(`SELECT id, received_at, provider FROM webhook_inbox WHERE resource_id IN (${values.charge})`);
  for (const [kind, column] of [
    ["email", "customer_email"],
    ["customer", "customer_id"],
  ] as const) {
    const set = values[kind];
    if (!set) continue;
    found.push(`${kind}_values AS MATERIALIZED (${set})`);
    lookups.push(
      `SELECT id, received_at, provider FROM webhook_inbox WHERE ${column} IN (SELECT v FROM ${kind}_values)`,
      `SELECT w.id, w.received_at, w.provider FROM ${PAYMENT_EVENTS}
        WHERE p.${column} IN (SELECT v FROM ${kind}_values)`,
    );
  }
  return `${found.length > 0 ? `WITH ${found.join(", ")} ` : ""}${lookups.join(" UNION ALL ")}`;
}

/**
 * What "matched by the whole term" means, once for both forms below: each column that may hold the
 * whole term (an event's own, and its payment's where `ofPayment`), how a value of it equals the
 * term, and how it is found through an index (`lookup`: a prefix probe narrowing to the same
 * equality, so it finds exactly those). For an e-mail the whole term is its local part
 * ("customer7" and "customer7@exa" are customer7@example.com's, not customer70's).
 */
function wholeTermMatches(term: string, param: Param, idsOnly: boolean) {
  const whole = param(term);
  const equalsWhole = (column: string) => `${column} = ${whole}`;
  const matches = [
    { column: "event_id", ofPayment: false, equals: equalsWhole, lookup: equalsWhole },
    { column: "resource_id", ofPayment: false, equals: equalsWhole, lookup: equalsWhole },
  ];
  if (idsOnly) return matches;
  const localPart = term.toLowerCase().split("@")[0]!;
  const local = param(localPart);
  // Bound only when a lookup is written: a statement may not carry a parameter it never uses.
  let localAt: string | undefined;
  const equalsLocal = (column: string) => `split_part(${column}, '@', 1) = ${local}`;
  // An e-mail whose part before its first "@" is the term's: by the e-mail's start (prefix index).
  const lookupLocal = (column: string) =>
    `(${column} LIKE ${(localAt ??= param(`${escapeLike(localPart)}@%`))} OR ${column} = ${local}) AND ${equalsLocal(column)}`;
  matches.push(
    { column: "customer_id", ofPayment: true, equals: equalsWhole, lookup: equalsWhole },
    { column: "customer_email", ofPayment: true, equals: equalsLocal, lookup: lookupLocal },
  );
  return matches;
}

/** 0 for an event matched by the whole term (wholeTermMatches), 1 for a fragment match. */
export function exactRankSql(term: string, param: Param, idsOnly: boolean): string {
  const matches = wholeTermMatches(term, param, idsOnly);
  const exact = matches.map(({ column, equals }) => equals(column));
  const ofPayment = matches.filter((match) => match.ofPayment).map(({ column, equals }) => equals(`p.${column}`));
  if (ofPayment.length > 0) {
    // A scalar subquery, one probe of the payment's key per listed event: written as EXISTS,
    // PostgreSQL may hash it instead, reading every payment.
    exact.push(`COALESCE((SELECT ${ofPayment.join(" OR ")} FROM payments p
                  WHERE p.provider = webhook_inbox.provider AND p.gateway_charge_id = webhook_inbox.resource_id), false)`);
  }
  return `(CASE WHEN ${exact.join(" OR ")} THEN 0 ELSE 1 END)`;
}

/**
 * The ids of the events exactRankSql ranks 0, found through indexes: a search's page is then the
 * newest of those and the newest of the rest, without ranking every match.
 */
export function exactIdsSql(term: string, param: Param, idsOnly: boolean): string {
  const payments = `SELECT w.id FROM ${PAYMENT_EVENTS}`;
  return wholeTermMatches(term, param, idsOnly)
    .flatMap(({ column, ofPayment, lookup }) => [
      `SELECT id FROM webhook_inbox WHERE ${lookup(column)}`,
      ...(ofPayment ? [`${payments} WHERE ${lookup(`p.${column}`)}`] : []),
    ])
    .join(" UNION ALL ");
}
