import { z } from "zod";
import { PROVIDER_NAMES } from "../../providers/registry";
import { dateParamSchema, storableTextSchema } from "../../request/input-schemas";
import { eventsOfValuesSql, exactIdsSql, exactRankSql, PAYMENT_EVENTS, searchValuesSql } from "./search-term-sql";
import { PENDING_ROWS, SETTLED_ROWS } from "./settled-search";

export const INBOX_STATUSES = ["pending", "processed", "ignored", "failed"] as const;
export type InboxStatus = (typeof INBOX_STATUSES)[number];

const optionalDate = dateParamSchema.optional();

/**
 * Which inbox events an operation is about. The explorer lists by it, bulk replay previews and
 * replays by it: one definition, so the preview count is the count the replay touches.
 */
export const eventFilterSchema = z.object({
  provider: z.enum(PROVIDER_NAMES).optional(),
  /** The gateway account (webhook_inbox.gateway_account). */
  account: storableTextSchema.trim().min(1).max(200).optional(),
  statuses: z.array(z.enum(INBOX_STATUSES)).optional(),
  type: storableTextSchema.max(80).optional(),
  receivedFrom: optionalDate,
  receivedTo: optionalDate,
  occurredFrom: optionalDate,
  occurredTo: optionalDate,
  eventId: storableTextSchema.max(150).optional(),
  resourceId: storableTextSchema.max(150).optional(),
  /** A customer e-mail (contains "@") or a customer id. */
  customer: storableTextSchema.max(320).optional(),
  /** What support has in hand: an e-mail, or an event, charge or customer id, whole or in part. */
  search: storableTextSchema.trim().min(1).max(320).optional(),
  /** The search matches event and charge ids only (set for roles that may not search customers). */
  searchIdsOnly: z.boolean().optional(),
  /** A dotted path into the payload (`data.object.metadata.order_id`) and the value it must hold. */
  jsonPath: z
    .string()
    .max(200)
    .regex(/^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/, "use a dotted path like data.object.id")
    .optional(),
  jsonValue: storableTextSchema.max(500).optional(),
  ids: z.array(z.number().int().positive()).max(10_000).optional(),
  /** Events about a charge that has no payment (yet): it never came to exist, or isn't registered. */
  withoutPayment: z.boolean().optional(),
  /** The events a bulk replay run put back to pending. */
  replayRun: z.coerce.number().int().positive().optional(),
});
export type EventFilter = z.infer<typeof eventFilterSchema>;

type Bind = (value: unknown) => string;

/**
 * A search that is the filter's only condition, in parts a query can use without reading every
 * matching row: `keys`, a subquery of the matches' (id, received_at, provider), an event possibly
 * more than once (its parameters are the fragment's); `exactIds`, the ids of those ranked 0.
 */
export type SearchAlone = { keys: string; exactIds: (param: Bind) => string };

/**
 * A WHERE clause and its parameters; for a search, also the rank that puts exact matches first,
 * written on demand by those who sort (its parameters bound after the caller's own), and the search
 * in parts when it is the only condition.
 */
export type SqlFragment = { where: string; params: unknown[]; rank?: (param: Bind) => string; searchAlone?: SearchAlone };

/** The payload containing `value` at `path`, as a jsonb document (what `@>` and the GIN index match). */
function containment(path: string, value: unknown): string {
  return JSON.stringify(path.split(".").reduceRight<unknown>((inner, key) => ({ [key]: inner }), value));
}

/**
 * Events of a customer: those that name the customer, and those of the customer's payments (a
 * dispute or refund notice often carries no customer at all). A union of lookups, one per index.
 */
function customerLookups(value: string, placeholder: string): string {
  const [column, term] = value.includes("@") ? ["customer_email", `lower(${placeholder})`] : ["customer_id", placeholder];
  return [
    `SELECT id, received_at FROM webhook_inbox WHERE ${column} = ${term}`,
    `SELECT w.id, w.received_at FROM ${PAYMENT_EVENTS} WHERE p.${column} = ${term}`,
  ].join(" UNION ALL ");
}

// The events a union of index lookups finds, by their keys (id and received_at: each is read from
// its month's partition alone). Written as an OR (with a subquery on payments), the same condition
// can't use those indexes together: PostgreSQL walks the inbox in time order and tests every row,
// seconds at 10M rows for a rare match; as a union it is a few index probes.
function anyOf(lookups: string): string {
  return `(id, received_at) IN (SELECT id, received_at FROM (${lookups}) keys)`;
}

/**
 * The filter as a WHERE clause over webhook_inbox (alias-free), with numbered parameters starting
 * after `offset`. Every condition is one an index serves (see the explorer migration).
 */
export function eventFilterSql(filter: EventFilter, offset = 0): SqlFragment {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${offset + params.length}`;
  };
  if (filter.provider) conditions.push(`provider = ${param(filter.provider)}`);
  if (filter.account) conditions.push(`gateway_account = ${param(filter.account)}`);
  if (filter.statuses?.length) conditions.push(`status = ANY(${param(filter.statuses)}::text[])`);
  if (filter.type) conditions.push(`event_type = ${param(filter.type)}`);
  if (filter.receivedFrom) conditions.push(`received_at >= ${param(filter.receivedFrom)}`);
  if (filter.receivedTo) conditions.push(`received_at < ${param(filter.receivedTo)}`);
  if (filter.occurredFrom) conditions.push(`occurred_at >= ${param(filter.occurredFrom)}`);
  if (filter.occurredTo) conditions.push(`occurred_at < ${param(filter.occurredTo)}`);
  if (filter.eventId) conditions.push(`event_id = ${param(filter.eventId)}`);
  if (filter.resourceId) conditions.push(`resource_id = ${param(filter.resourceId)}`);
  if (filter.customer) conditions.push(anyOf(customerLookups(filter.customer, param(filter.customer))));
  let rank: SqlFragment["rank"];
  let search: SearchAlone | undefined;
  if (filter.search) {
    const [term, idsOnly] = [filter.search, filter.searchIdsOnly ?? false];
    search = { keys: eventsOfValuesSql(searchValuesSql(term, param, idsOnly)), exactIds: (bind) => exactIdsSql(term, bind, idsOnly) };
    conditions.push(anyOf(search.keys));
    rank = (bind) => exactRankSql(term, bind, idsOnly);
  }
  if (filter.jsonPath && filter.jsonValue !== undefined) {
    const asText = containment(filter.jsonPath, filter.jsonValue);
    const number = Number(filter.jsonValue);
    const alternatives = [`payload @> ${param(asText)}::jsonb`];
    if (filter.jsonValue.trim() !== "" && Number.isFinite(number)) {
      alternatives.push(`payload @> ${param(containment(filter.jsonPath, number))}::jsonb`);
    }
    if (filter.jsonValue === "true" || filter.jsonValue === "false") {
      alternatives.push(`payload @> ${param(containment(filter.jsonPath, filter.jsonValue === "true"))}::jsonb`);
    }
    const matches = alternatives.join(" OR ");
    conditions.push(`(${SETTLED_ROWS} AND (${matches}) OR ${PENDING_ROWS} AND (${matches}))`);
  }
  if (filter.ids?.length) conditions.push(`id = ANY(${param(filter.ids)}::bigint[])`);
  // Qualified by the table's name: every caller reads webhook_inbox unaliased. The payments key is
  // unique, so this is one index probe per candidate event.
  if (filter.withoutPayment) {
    conditions.push(
      `resource_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.provider = webhook_inbox.provider AND p.gateway_charge_id = webhook_inbox.resource_id)`,
    );
  }
  if (filter.replayRun) conditions.push(`id IN (SELECT inbox_id FROM event_replays WHERE run_id = ${param(filter.replayRun)})`);
  return {
    where: conditions.length ? conditions.join(" AND ") : "true",
    params,
    rank,
    searchAlone: conditions.length === 1 ? search : undefined,
  };
}
