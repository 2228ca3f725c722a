import { z } from "zod";
import type { AppConfig } from "../config/env";
import { configuredProviders } from "../config/configured-providers";
import { eventFilterSchema, type EventFilter } from "../inbox/queries/event-filter";
import { decodeCursor, EVENT_SORTS, type EventSort } from "../inbox/queries/list-events";

export type SearchParams = Record<string, string | string[] | undefined>;

export const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) || undefined;
export const many = (value: string | string[] | undefined) =>
  value === undefined
    ? undefined
    : [value]
        .flat()
        .flatMap((item) => item.split(","))
        .filter(Boolean);

/**
 * The explorer's URL is its state (shareable links): these are its parameters, parsed into the
 * event filter every list, preview and bulk replay uses.
 */
function filterFromParams(params: SearchParams): {
  filter: EventFilter;
  sort: EventSort;
  cursor: string | undefined;
  before: string | undefined;
} {
  const filter = eventFilterSchema.parse({
    provider: one(params.provider),
    account: one(params.account),
    statuses: many(params.status),
    type: one(params.type),
    receivedFrom: one(params.from),
    receivedTo: one(params.to),
    occurredFrom: one(params.occurredFrom),
    occurredTo: one(params.occurredTo),
    search: one(params.q),
    jsonPath: one(params.path),
    jsonValue: one(params.value),
    customer: one(params.customer),
    withoutPayment: z.object({ payment: z.literal("none").optional() }).parse({ payment: one(params.payment) }).payment ? true : undefined,
    replayRun: one(params.run),
  });
  const sort = z.enum(EVENT_SORTS).catch("received_desc").parse(one(params.sort));
  const cursor = one(params.cursor);
  const before = one(params.before);
  for (const [name, value] of [
    ["cursor", cursor],
    ["before", before],
  ] as const) {
    if (value !== undefined && !decodeCursor(value)) {
      throw new z.ZodError([
        { code: "custom", path: [name], message: "is not a page of this list (start from the first page)", input: value },
      ]);
    }
  }
  return { filter, sort, cursor, before };
}

export type ParsedFilterParams = ({ ok: true } & ReturnType<typeof filterFromParams>) | { ok: false; message: string };

/** filterFromParams for pages: a link with a bad filter gets a message naming what is wrong. */
export function parseFilterParams(params: SearchParams): ParsedFilterParams {
  try {
    return { ok: true, ...filterFromParams(params) };
  } catch (error) {
    if (error instanceof z.ZodError) return { ok: false, message: describeParamsError(error, URL_NAMES) };
    throw error;
  }
}

/** The URL parameters of a filter (the inverse of filterFromParams), without pagination. */
export function paramsFromFilter(filter: EventFilter, sort?: EventSort): URLSearchParams {
  const params = new URLSearchParams();
  const set = (name: string, value: string | Date | undefined) => {
    if (value !== undefined && value !== "") params.set(name, value instanceof Date ? value.toISOString() : value);
  };
  set("provider", filter.provider);
  set("account", filter.account);
  if (filter.statuses?.length) params.set("status", filter.statuses.join(","));
  set("type", filter.type);
  set("from", filter.receivedFrom);
  set("to", filter.receivedTo);
  set("occurredFrom", filter.occurredFrom);
  set("occurredTo", filter.occurredTo);
  set("q", filter.search);
  set("path", filter.jsonPath);
  set("value", filter.jsonValue);
  set("customer", filter.customer);
  if (filter.withoutPayment) params.set("payment", "none");
  if (filter.replayRun) params.set("run", String(filter.replayRun));
  if (sort && sort !== "received_desc") params.set("sort", sort);
  return params;
}

// The filter's field names as the URL spells them, for messages about a bad link.
const URL_NAMES: Record<string, string> = {
  statuses: "status",
  receivedFrom: "from",
  receivedTo: "to",
  search: "q",
  jsonPath: "path",
  jsonValue: "value",
  replayRun: "run",
};

/** A bad filter link in words ("status: use one of pending, processed, …"), never raw validation JSON. */
export function describeParamsError(error: z.ZodError, urlNames: Record<string, string>): string {
  return error.issues
    .map((issue) => {
      const field = String(issue.path[0] ?? "filter");
      const name = urlNames[field] ?? field;
      if (issue.code === "invalid_value") return `${name}: use one of ${issue.values.map(String).join(", ")}`;
      if (issue.code === "invalid_type" && issue.expected === "date") return `${name}: not a date (use e.g. 2026-12-01T09:00:00Z)`;
      if (issue.code === "too_big") return `${name}: too long (at most ${String(issue.maximum)} characters)`;
      if (issue.code === "too_small") return `${name}: empty`;
      // Our own refinements are written as sentences; zod's generic ones are not shown as they are.
      return issue.code === "custom" ? `${name}: ${issue.message}` : `${name}: not a value this filter can use`;
    })
    .join("; ");
}

/** The gateways the explorer's filter offers: the configured ones, and the one a link names. */
export function eventFilterProviders(config: AppConfig, filter: EventFilter): string[] {
  return [...new Set([...configuredProviders(config), ...(filter.provider ? [filter.provider] : [])])];
}
