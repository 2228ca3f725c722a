import { amountReadings } from "../canonical/money";
import type { Queryable } from "../db/pool";
import type { PaymentStatus } from "./state-machine";
import { paymentColumns, type PaymentRecord } from "./get-payment";
import { addMoney, CAPTURED_STATUSES, NO_MONEY, paymentMoney, type PaymentMoney } from "./payment-money";
import { anyOfSources, paymentValueSources, searchPatterns } from "./search-values";

export type PaymentListRow = PaymentRecord & { events: number };

export type PaymentPage = {
  rows: PaymentListRow[];
  total: number;
  totalCapped: boolean;
  page: number;
  pageSize: number;
  /** Per currency, over every payment the filter matches (not only this page). */
  totals: PaymentTotal[];
  totalsCapped: boolean;
};

export type PaymentSort = `${"updated" | "created" | "amount"}_${"asc" | "desc"}`;

/** When in its life a payment can be filtered and exported by (besides when it was first seen). */
export const PAYMENT_EVENT_DATES = ["paid", "refunded", "disputed", "updated"] as const;
export type PaymentEventDate = (typeof PAYMENT_EVENT_DATES)[number];

// The transitions that date a payment's being paid, refunded (in part or whole) and disputed. Paid is
// the first change into any status whose money was taken: a refund or dispute applied before the
// payment notice (which then comes stale and changes nothing) dates the capture too.
const DATED_BY: Record<Exclude<PaymentEventDate, "updated">, readonly PaymentStatus[]> = {
  paid: CAPTURED_STATUSES,
  refunded: ["partially_refunded", "refunded"],
  disputed: ["disputed", "charged_back"],
};

export type PaymentEventDates = { createdAt: Date; paidAt: Date | null; refundedAt: Date | null; disputedAt: Date | null };

/**
 * A payment's dates as the CSV lists them (SQL over payments aliased `p`): when it was paid (first),
 * last refunded and last disputed, as the inbox applied those changes (the transitions' time).
 */
export function paymentEventDatesSql(): string {
  const at = (statuses: readonly PaymentStatus[], pick: "min" | "max") =>
    `(SELECT ${pick}(t.applied_at) FROM payment_transitions t WHERE t.payment_id = p.id AND t.to_status IN (${statuses.map((status) => `'${status}'`).join(", ")}))`;
  return `${at(DATED_BY.paid, "min")} AS "paidAt", ${at(DATED_BY.refunded, "max")} AS "refundedAt", ${at(DATED_BY.disputed, "max")} AS "disputedAt", p.created_at AS "createdAt"`;
}

/** Which payments a list, its totals and its export are about (parsed at the edge, lib/console). */
export type PaymentFilter = {
  search?: string;
  /** The search matches charge ids only (for roles that may not search customers). */
  searchIdsOnly?: boolean;
  statuses?: PaymentStatus[];
  provider?: string;
  /** The gateway account (payments.gateway_account). */
  account?: string;
  /** Created (first seen) from, inclusive, and to, exclusive. */
  createdFrom?: Date;
  createdTo?: Date;
  /** Paid, refunded or disputed (any such change) or last changed from, inclusive, and to, exclusive. */
  dated?: { on: PaymentEventDate; from?: Date; to?: Date };
};

/**
 * What support types into the payments search, as a WHERE clause over payments aliased `p`: the
 * payments of the few charge ids, e-mails and customer ids the term resolves to (search-values.ts),
 * and of the amount it can be, each found through its own index.
 */
export function paymentSearchSql(term: string, param: (value: unknown) => string, idsOnly = false): string {
  const sources = paymentValueSources(searchPatterns(term, param, idsOnly));
  const lookups = (
    [
      ["gateway_charge_id", sources.charge],
      ["customer_email", sources.email],
      ["customer_id", sources.customer],
    ] as const
  )
    .filter(([, of]) => of)
    .map(([column, of]) => `SELECT id FROM payments WHERE ${column} IN (${anyOfSources(of!)})`);
  // An amount is matched exactly, in the currencies whose minor unit it can be written in.
  for (const reading of amountReadings(term) ?? []) {
    const currency = reading.currencies.length
      ? `upper(currency) = ANY(${param(reading.currencies)}::text[])`
      : `NOT upper(currency) = ANY(${param(reading.exceptCurrencies)}::text[])`;
    lookups.push(`SELECT id FROM payments WHERE amount = ${param(reading.amount)} AND ${currency}`);
  }
  return `p.id IN (${lookups.join(" UNION ALL ")})`;
}

/** The filter as a WHERE clause over payments aliased `p`, with the parameters it binds. */
export function paymentFilterSql(filter: PaymentFilter, params: unknown[] = []): { where: string; params: unknown[] } {
  const param = (value: unknown) => `$${params.push(value)}`;
  const conditions: string[] = [];
  if (filter.search) conditions.push(paymentSearchSql(filter.search, param, filter.searchIdsOnly));
  if (filter.statuses?.length) conditions.push(`p.status = ANY(${param(filter.statuses)}::text[])`);
  if (filter.provider) conditions.push(`p.provider = ${param(filter.provider)}`);
  if (filter.account) conditions.push(`p.gateway_account = ${param(filter.account)}`);
  if (filter.createdFrom) conditions.push(`p.created_at >= ${param(filter.createdFrom)}`);
  if (filter.createdTo) conditions.push(`p.created_at < ${param(filter.createdTo)}`);
  const dated = filter.dated;
  if (dated && (dated.from || dated.to)) {
    const window = (column: string) =>
      [dated.from ? `${column} >= ${param(dated.from)}` : null, dated.to ? `${column} < ${param(dated.to)}` : null]
        .filter(Boolean)
        .join(" AND ");
    if (dated.on === "updated") conditions.push(window("p.updated_at"));
    else {
      const statuses = `${param(DATED_BY[dated.on])}::text[]`;
      // Paid once: the first of those changes (the export's paid_at), not one back to paid after a dispute was won.
      const first =
        dated.on === "paid"
          ? ` AND NOT EXISTS (SELECT 1 FROM payment_transitions e WHERE e.payment_id = t.payment_id AND e.to_status = ANY(${statuses}) AND e.applied_at < t.applied_at)`
          : "";
      conditions.push(
        `p.id IN (SELECT t.payment_id FROM payment_transitions t WHERE t.to_status = ANY(${statuses}) AND ${window("t.applied_at")}${first})`,
      );
    }
  }
  return { where: conditions.length ? conditions.join(" AND ") : "true", params };
}

/**
 * A search ranks the exact customer or charge before those it is a prefix of; an e-mail is exact
 * when its local part is ("customer7" is customer7@…, listed before customer70@…).
 */
function exactFirst(filter: PaymentFilter, param: (value: unknown) => string): string {
  if (!filter.search) return "";
  const term = param(filter.search);
  const exact = filter.searchIdsOnly
    ? `p.gateway_charge_id = ${term}`
    : `split_part(p.customer_email, '@', 1) = ${param(filter.search.toLowerCase().split("@")[0])} OR p.customer_id = ${term} OR p.gateway_charge_id = ${term}`;
  // IS TRUE: a payment with no customer id compares to NULL, which would sort first.
  return `((${exact}) IS TRUE) DESC, `;
}

// Each sort column as an expression no index is sorted by (the same value): it keeps PostgreSQL off
// the sort's index.
const FENCED = {
  "p.updated_at": "(p.updated_at + interval '0')",
  "p.created_at": "(p.created_at + interval '0')",
  "p.currency": "(p.currency || '')",
  "p.amount": "(p.amount + 0)",
};
type SortColumn = keyof typeof FENCED;

// Each sort's columns, in order, before the id that breaks ties the way the last one goes. Amounts
// are minor units, comparable only within a currency (¥98,863 is not R$988.63): the amount sort
// groups by currency first. Both ways read one index (currency, amount DESC NULLS LAST, id DESC),
// backwards for ascending: an unknown amount sorts as the smallest, and the currencies in reverse.
const ORDER: Record<PaymentSort, [column: SortColumn, direction: string][]> = {
  updated_desc: [["p.updated_at", "DESC"]],
  updated_asc: [["p.updated_at", "ASC"]],
  created_desc: [["p.created_at", "DESC"]],
  created_asc: [["p.created_at", "ASC"]],
  amount_desc: [
    ["p.currency", "ASC NULLS LAST"],
    ["p.amount", "DESC NULLS LAST"],
  ],
  amount_asc: [
    ["p.currency", "DESC NULLS FIRST"],
    ["p.amount", "ASC NULLS FIRST"],
  ],
};

// A filter matching at most this many payments is read through its filters' indexes and then
// sorted: walking the sort's own index for so few could read nearly every payment before the first
// match (a rare status and provider together, or a date range far from the sort's end).
const FEW_PAYMENTS = 20_000;

function orderBy(sort: PaymentSort, fenced: boolean): string {
  const keys = ORDER[sort];
  const ties = keys.at(-1)![1].split(" ")[0];
  return [...keys.map(([column, direction]) => `${fenced ? FENCED[column] : column} ${direction}`), `p.id ${ties}`].join(", ");
}

/**
 * The payments list's order: a search's exact matches first, then `sort`, ties broken by id the same
 * way. The CSV export reads with it too, so a file comes out in the order the list shows.
 */
export function paymentOrderSql(filter: PaymentFilter, sort: PaymentSort, param: (value: unknown) => string, fenced = false): string {
  return `${exactFirst(filter, param)}${orderBy(sort, fenced)}`;
}

/**
 * Payments matching a filter, exact search matches first, then in the chosen order, one page at a
 * time with the total and the totals per currency. Without a search both come from one read of the
 * hourly rollup (exact); a search's total is counted up to `countCap`, so a broad one stays cheap.
 */
export async function searchPayments(
  db: Queryable,
  filter: PaymentFilter,
  options: { page?: number; pageSize?: number; countCap?: number; sort?: PaymentSort } = {},
): Promise<PaymentPage> {
  const pageSize = Math.min(Math.max(options.pageSize ?? 50, 1), 200);
  const page = Math.max(1, Math.floor(options.page ?? 1));
  const countCap = options.countCap ?? 10_000;
  const sort = options.sort ?? "updated_desc";
  const listPage = (where: string, params: unknown[], order: string) => {
    const param = (value: unknown) => `$${params.push(value)}`;
    return db.query<PaymentListRow>(
      `SELECT ${paymentColumns("p")},
              (SELECT count(*)::int FROM webhook_inbox i WHERE i.provider = p.provider AND i.resource_id = p.gateway_charge_id) AS events
         FROM payments p
        WHERE ${where}
        ORDER BY ${order}
        LIMIT ${param(pageSize)} OFFSET ${param((page - 1) * pageSize)}`,
      params,
    );
  };
  const { where, params } = paymentFilterSql(filter);
  if (!summedOverMatches(filter)) {
    const sums = await paymentTotals(db, filter);
    const n = sums.totals.reduce((sum, total) => sum + total.payments, 0);
    const list = await listPage(
      where,
      params,
      paymentOrderSql(filter, sort, (value) => `$${params.push(value)}`, n <= FEW_PAYMENTS),
    );
    return { rows: list.rows, total: n, totalCapped: sums.capped, page, pageSize, totals: sums.totals, totalsCapped: sums.capped };
  }
  const countParams = [...params, countCap + 1];
  const order = paymentOrderSql(filter, sort, (value) => `$${params.push(value)}`, Boolean(filter.dated));
  const [list, count, sums] = await Promise.all([
    // A date other than creation is read through the transitions' index, then sorted.
    listPage(where, params, order),
    db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM payments p WHERE ${where} LIMIT $${countParams.length}) matched`,
      countParams,
    ),
    paymentTotals(db, filter),
  ]);
  const n = count.rows[0]!.n;
  return {
    rows: list.rows,
    total: Math.min(n, countCap),
    totalCapped: n > countCap,
    page,
    pageSize,
    totals: sums.totals,
    totalsCapped: sums.capped,
  };
}

/**
 * Per currency: how many payments and how many in each status, and their money (minor units) as
 * payment-money.ts defines it: failed, canceled and still pending payments count, but add nothing.
 */
export type PaymentTotal = PaymentMoney & {
  currency: string | null;
  payments: number;
  byStatus: Record<string, number>;
};

export type TotalsRow = { currency: string | null; status: string; payments: number; amount: string; refunded: string };

/** Rows counted by currency and status folded into one total per currency. */
export function totalsByCurrency(rows: TotalsRow[]): PaymentTotal[] {
  const byCurrency = new Map<string | null, PaymentTotal>();
  for (const row of rows) {
    const total = byCurrency.get(row.currency) ?? { currency: row.currency, payments: 0, byStatus: {}, ...NO_MONEY };
    byCurrency.set(row.currency, {
      ...total,
      ...addMoney(total, paymentMoney(row.status, Number(row.amount), Number(row.refunded))),
      payments: total.payments + row.payments,
      byStatus: { ...total.byStatus, [row.status]: row.payments },
    });
  }
  return [...byCurrency.values()];
}

const HOUR_MS = 3_600_000;

/**
 * A filter without a search, as whole UTC hours (read from payment_hourly_totals) and the partial
 * hours at its edges (read from payments): [from, start) and [end, to), each within one hour.
 */
export function hourSpans(filter: PaymentFilter): { start: Date | null; end: Date | null } {
  const from = filter.createdFrom?.getTime();
  const to = filter.createdTo?.getTime();
  const start = from === undefined ? null : Math.ceil(from / HOUR_MS) * HOUR_MS;
  const end = to === undefined ? null : Math.floor(to / HOUR_MS) * HOUR_MS;
  if (start !== null && end !== null && start >= end) return { start: null, end: null };
  return { start: start === null ? null : new Date(start), end: end === null ? null : new Date(end) };
}

// The rollup counts by creation hour, provider and status: a search, another date or an account
// (10,000 accounts would multiply its rows) is summed over its matches.
const summedOverMatches = (filter: PaymentFilter) => Boolean(filter.search || filter.dated || filter.account);

const MATCHED_TOTALS = (where: string) =>
  `SELECT p.currency, p.status, count(*)::int AS payments, COALESCE(sum(p.amount), 0) AS amount, COALESCE(sum(p.amount_refunded), 0) AS refunded
     FROM payments p WHERE ${where} GROUP BY 1, 2`;

/**
 * Totals for a filter, per currency (amounts in minor units can't be added across currencies).
 * Without a search they come from the hourly rollup plus the filter's partial edge hours, exact at
 * any size. A search (or a filter by another date) is summed over its matches, at most `cap` of them; beyond that `capped` says the
 * sums cover only part.
 */
export async function paymentTotals(
  db: Queryable,
  filter: PaymentFilter,
  cap = 250_000,
): Promise<{ totals: PaymentTotal[]; capped: boolean }> {
  const matched = summedOverMatches(filter);
  const { start, end } = matched ? { start: null, end: null } : hourSpans(filter);
  if (matched || (start === null && end === null && (filter.createdFrom || filter.createdTo))) {
    const { where, params } = paymentFilterSql(filter);
    params.push(cap + 1);
    const { rows } = await db.query<TotalsRow>(
      `SELECT currency, status, count(*)::int AS payments, COALESCE(sum(amount), 0)::text AS amount, COALESCE(sum(amount_refunded), 0)::text AS refunded
         FROM (SELECT p.currency, p.status, p.amount, p.amount_refunded FROM payments p WHERE ${where} LIMIT $${params.length}) matched
        GROUP BY currency, status
        ORDER BY currency NULLS LAST, status`,
      params,
    );
    const totals = totalsByCurrency(rows);
    return { totals, capped: totals.reduce((sum, total) => sum + total.payments, 0) > cap };
  }
  const params: unknown[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  const rollup = [
    filter.statuses?.length ? `t.status = ANY(${param(filter.statuses)}::text[])` : null,
    filter.provider ? `t.provider = ${param(filter.provider)}` : null,
    start ? `t.hour >= ${param(start)}` : null,
    end ? `t.hour < ${param(end)}` : null,
  ].filter(Boolean);
  const parts = [
    `SELECT NULLIF(t.currency, '') AS currency, t.status, sum(t.payments)::int AS payments, sum(t.amount) AS amount, sum(t.refunded) AS refunded
       FROM payment_hourly_totals t ${rollup.length ? `WHERE ${rollup.join(" AND ")}` : ""} GROUP BY 1, 2`,
  ];
  const edges = { ...filter, createdFrom: undefined, createdTo: undefined };
  if (start && start.getTime() !== filter.createdFrom!.getTime()) {
    parts.push(MATCHED_TOTALS(paymentFilterSql({ ...edges, createdFrom: filter.createdFrom, createdTo: start }, params).where));
  }
  if (end && end.getTime() !== filter.createdTo!.getTime()) {
    parts.push(MATCHED_TOTALS(paymentFilterSql({ ...edges, createdFrom: end, createdTo: filter.createdTo }, params).where));
  }
  const { rows } = await db.query<TotalsRow>(
    `SELECT currency, status, sum(payments)::int AS payments, sum(amount)::text AS amount, sum(refunded)::text AS refunded
       FROM (${parts.join(" UNION ALL ")}) counted
      GROUP BY currency, status HAVING sum(payments) <> 0
      ORDER BY currency NULLS LAST, status`,
    params,
  );
  return { totals: totalsByCurrency(rows), capped: false };
}
