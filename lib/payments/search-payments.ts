import type { Queryable } from "../db/pool";
import { paymentColumns, type PaymentView } from "./get-payment";

export type PaymentListRow = PaymentView & { events: number };

export type PaymentPage = { rows: PaymentListRow[]; total: number; totalCapped: boolean; page: number; pageSize: number };

const escapeLike = (term: string) => term.replace(/[\\%_]/g, (char) => `\\${char}`);

/**
 * What support types into the payments search, as a WHERE clause over payments aliased `p`:
 * an e-mail or its start ("ana@sh" -> LIKE 'ana@sh%'), a part of an e-mail of three characters or
 * more ("buyer1" anywhere, trigram index), a customer id or charge id or their start. Each branch
 * is one an index serves (see the customer-search migration).
 */
export function paymentSearchSql(term: string, param: (value: unknown) => string): string {
  const lowered = term.toLowerCase();
  const prefix = param(`${escapeLike(lowered)}%`);
  const exactOrPrefix = param(`${escapeLike(term)}%`);
  const branches = [`p.customer_email LIKE ${prefix}`, `p.customer_id LIKE ${exactOrPrefix}`, `p.gateway_charge_id LIKE ${exactOrPrefix}`];
  if (!term.includes("@") && term.length >= 3) branches.push(`p.customer_email LIKE ${param(`%${escapeLike(lowered)}%`)}`);
  return `(${branches.join(" OR ")})`;
}

/**
 * Payments matching a search (or all of them), most recently updated first, one page at a time with
 * the total (counted up to `countCap`, so a broad search stays cheap).
 */
export async function searchPayments(
  db: Queryable,
  query: string | undefined,
  options: { page?: number; pageSize?: number; countCap?: number } = {},
): Promise<PaymentPage> {
  const term = query?.trim() ?? "";
  const pageSize = Math.min(Math.max(options.pageSize ?? 50, 1), 200);
  const page = Math.max(1, Math.floor(options.page ?? 1));
  const countCap = options.countCap ?? 10_000;
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = term ? paymentSearchSql(term, param) : "true";
  const countParams = [...params, countCap + 1];
  const [list, count] = await Promise.all([
    db.query<PaymentListRow>(
      `SELECT ${paymentColumns("p")},
              (SELECT count(*)::int FROM webhook_inbox i WHERE i.provider = p.provider AND i.resource_id = p.gateway_charge_id) AS events
         FROM payments p
        WHERE ${where}
        ORDER BY p.updated_at DESC, p.id DESC
        LIMIT ${param(pageSize)} OFFSET ${param((page - 1) * pageSize)}`,
      params,
    ),
    db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM payments p WHERE ${where} LIMIT $${countParams.length}) matched`,
      countParams,
    ),
  ]);
  const n = count.rows[0]!.n;
  return { rows: list.rows, total: Math.min(n, countCap), totalCapped: n > countCap, page, pageSize };
}
