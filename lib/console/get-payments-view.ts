import type { Role } from "../auth/permissions";
import type { Queryable } from "../db/pool";
import { searchPayments, type PaymentFilter, type PaymentSort, type PaymentTotal } from "../payments/search-payments";
export type { PaymentMoney } from "../payments/payment-money";
import { searchesIdsOnly, searchRefusal } from "../privacy/mask-for-role";
import { describeSearch, type SearchDescription } from "./search-description";
import { paymentTableRow, type PaymentTableRow } from "./payment-table-row";

export type PaymentsView = {
  ok: true;
  rows: PaymentTableRow[];
  total: number;
  totalCapped: boolean;
  page: number;
  pageSize: number;
  /** Per currency, over every payment the filter matches (not only this page). */
  totals: PaymentTotal[];
  totalsCapped: boolean;
  /** What the search box offers, what a search looked through, and the empty list's hint. */
  search: SearchDescription;
};

/**
 * One page of payments for `role` with the filter's totals; a masked role's search matches charge
 * ids and amounts only, and one by e-mail is refused in words.
 */
export async function getPaymentsView(
  db: Queryable,
  role: Role,
  filter: PaymentFilter,
  options: { page: number; sort: PaymentSort },
): Promise<PaymentsView | { ok: false; message: string; search: SearchDescription }> {
  const search = describeSearch("payments", filter.search, searchesIdsOnly(role));
  const refusal = searchRefusal(role, filter);
  if (refusal) return { ok: false, message: refusal, search };
  const scoped = { ...filter, searchIdsOnly: searchesIdsOnly(role) };
  const page = await searchPayments(db, scoped, options);
  return { ok: true, ...page, rows: page.rows.map((row) => paymentTableRow(role, row)), search };
}
