import { z } from "zod";
import type { AppConfig } from "../config/env";
import { configuredProviders } from "../config/configured-providers";
import { PAYMENT_STATUSES } from "../payments/state-machine";
import { PAYMENT_SORTS, paymentFilterSchema } from "./payment-filter-schema";
import type { PaymentFilter, PaymentSort } from "../payments/search-payments";
import { describeParamsError, many, one, type SearchParams } from "./event-filter-params";

const URL_NAMES: Record<string, string> = { search: "q", statuses: "status", createdFrom: "from", createdTo: "to" };

export type ParsedPaymentParams = { ok: true; filter: PaymentFilter; sort: PaymentSort; page: number } | { ok: false; message: string };

/** The payments list's URL (its whole state: shareable) parsed into the filter lists, totals and exports use. */
export function parsePaymentParams(params: SearchParams): ParsedPaymentParams {
  const parsed = paymentFilterSchema.safeParse({
    search: one(params.q),
    statuses: many(params.status),
    provider: one(params.provider),
    createdFrom: one(params.from),
    createdTo: one(params.to),
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
  if (filter.createdFrom) params.set("from", filter.createdFrom.toISOString());
  if (filter.createdTo) params.set("to", filter.createdTo.toISOString());
  if (sort && sort !== "updated_desc") params.set("sort", sort);
  return params;
}

/** What the payments filter form offers: the configured gateways and every payment status. */
export function paymentFilterChoices(config: AppConfig): { providers: string[]; statuses: readonly string[] } {
  return { providers: configuredProviders(config), statuses: PAYMENT_STATUSES };
}
