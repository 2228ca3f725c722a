import type { Role } from "../auth/permissions";
import type { Queryable } from "../db/pool";
import { searchPayments, type PaymentFilter, type PaymentSort, type PaymentTotal } from "../payments/search-payments";
export type { PaymentMoney } from "../payments/payment-money";
import { searchesIdsOnly } from "../privacy/mask-for-role";
import { paymentTableRow, type PaymentTableRow } from "./payment-table-row";

export type PaymentsView = {
  rows: PaymentTableRow[];
  total: number;
  totalCapped: boolean;
  page: number;
  pageSize: number;
  /** Per currency, over every payment the filter matches (not only this page). */
  totals: PaymentTotal[];
  totalsCapped: boolean;
};

/** One page of payments for `role` with the filter's totals; a masked role's search matches charge ids only. */
export async function getPaymentsView(
  db: Queryable,
  role: Role,
  filter: PaymentFilter,
  options: { page: number; sort: PaymentSort },
): Promise<PaymentsView> {
  const scoped = { ...filter, searchIdsOnly: searchesIdsOnly(role) };
  const page = await searchPayments(db, scoped, options);
  return { ...page, rows: page.rows.map((row) => paymentTableRow(role, row)) };
}
