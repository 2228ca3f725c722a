import { z } from "zod";
import type { AppConfig } from "../config/env";
import { configuredProviders } from "../config/configured-providers";
import { PAYMENT_STATUSES } from "../payments/state-machine";
import { PAYMENT_SORTS, paymentFilterSchema } from "./payment-filter-schema";
import { PAYMENT_EVENT_DATES, type PaymentFilter, type PaymentSort } from "../payments/search-payments";
import { describeParamsError, many, one, type SearchParams } from "./event-filter-params";

const URL_NAMES: Record<string, string> = { search: "q", statuses: "status", createdFrom: "from", createdTo: "to", dated: "from/to" };

/** Which date a payments filter's window is of, as the URL's `on` spells it. */
export const PAYMENT_DATE_CHOICES = ["created", ...PAYMENT_EVENT_DATES] as const;
export type PaymentDateChoice = (typeof PAYMENT_DATE_CHOICES)[number];

/** Windows the filter offers by name (`range`), ending now: they go in the URL as concrete times. */
export const PAYMENT_RANGES = { "24h": "last 24 hours", month: "this month (UTC)" } as const;

function rangeWindow(range: string | undefined, now: Date): { from: string; to: string } | null {
  if (range === "24h") return { from: new Date(now.getTime() - 86_400_000).toISOString(), to: now.toISOString() };
  if (range === "month")
    return { from: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(), to: now.toISOString() };
  return null;
}

export type ParsedPaymentParams = { ok: true; filter: PaymentFilter; sort: PaymentSort; page: number } | { ok: false; message: string };

/** The payments list's URL (its whole state: shareable) parsed into the filter lists, totals and exports use. */
export function parsePaymentParams(params: SearchParams, now = new Date()): ParsedPaymentParams {
  const on = z.enum(PAYMENT_DATE_CHOICES).catch("created").parse(one(params.on));
  const window = rangeWindow(one(params.range), now) ?? { from: one(params.from), to: one(params.to) };
  const parsed = paymentFilterSchema.safeParse({
    search: one(params.q),
    statuses: many(params.status),
    provider: one(params.provider),
    account: one(params.account),
    ...(on === "created" ? { createdFrom: window.from, createdTo: window.to } : { dated: { on, ...window } }),
  });
  if (!parsed.success) return { ok: false, message: describeParamsError(parsed.error, URL_NAMES) };
  const sort = z.enum(PAYMENT_SORTS).catch("updated_desc").parse(one(params.sort));
  return { ok: true, filter: parsed.data, sort, page: Math.max(1, Number(one(params.page)) || 1) };
}

/** The URL parameters of a payments filter (the inverse of parsePaymentParams), without the page. */
export function paramsFromPaymentFilter(filter: PaymentFilter, sort?: PaymentSort): URLSearchParams {
  const params = new URLSearchParams();
  if (filter.search) params.set("q", filter.search);
  if (filter.statuses?.length) params.set("status", filter.statuses.join(","));
  if (filter.provider) params.set("provider", filter.provider);
  if (filter.account) params.set("account", filter.account);
  if (filter.createdFrom) params.set("from", filter.createdFrom.toISOString());
  if (filter.createdTo) params.set("to", filter.createdTo.toISOString());
  if (filter.dated) {
    params.set("on", filter.dated.on);
    if (filter.dated.from) params.set("from", filter.dated.from.toISOString());
    if (filter.dated.to) params.set("to", filter.dated.to.toISOString());
  }
  if (sort && sort !== "updated_desc") params.set("sort", sort);
  return params;
}

/** What the payments filter form offers: the configured gateways, every payment status, the dates and ranges. */
export function paymentFilterChoices(config: AppConfig): {
  providers: string[];
  statuses: readonly string[];
  dates: readonly PaymentDateChoice[];
  ranges: typeof PAYMENT_RANGES;
} {
  return { providers: configuredProviders(config), statuses: PAYMENT_STATUSES, dates: PAYMENT_DATE_CHOICES, ranges: PAYMENT_RANGES };
}

const fileTime = (date: Date) => date.toISOString().slice(0, 16).replace(":", "");

/**
 * A payments export's file name saying its filter: "payments-refunded-2026-12-02T1100-to-2026-12-03T1100-{gateway}-refunded.csv".
 * Only characters safe in a file name on every system (the search term is left out).
 */
export function paymentsFileName(filter: PaymentFilter): string {
  const on = filter.dated?.on ?? "created";
  const from = filter.dated ? filter.dated.from : filter.createdFrom;
  const to = filter.dated ? filter.dated.to : filter.createdTo;
  const parts = [
    "payments",
    ...(from || to ? [on, from ? fileTime(from) : "start", "to", to ? fileTime(to) : "now"] : []),
    ...(filter.provider ? [filter.provider] : []),
    ...(filter.statuses?.length ? [filter.statuses.join("+")] : []),
    ...(filter.search ? ["search"] : []),
  ];
  return `${parts.join("-")}.csv`;
}
