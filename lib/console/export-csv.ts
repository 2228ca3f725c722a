import type { Role } from "../auth/permissions";
import { decimalAmount } from "../canonical/money";
import { cursorRows, type Pool } from "../db/pool";
import type { EventFilter } from "../inbox/queries/event-filter";
import { eventsInOrder, type EventListRow, type EventSort } from "../inbox/queries/list-events";
import { paymentColumns, type PaymentRecord } from "../payments/get-payment";
import {
  paymentEventDatesSql,
  paymentFilterSql,
  paymentOrderSql,
  type PaymentEventDates,
  type PaymentFilter,
  type PaymentSort,
} from "../payments/search-payments";
import { maskEventRow, maskPayment, searchesIdsOnly, searchRefusal } from "../privacy/mask-for-role";

// Exports of the console's lists as CSV, in the order the list shows (the sort picked, its tie-breaker,
// a search's exact matches first) and with its columns in its order, then what the list leaves out.
// Read through one cursor (cursorRows: one snapshot, a batch at a time) and yielded line by line: no
// row cap, and the web holds one batch however large the export.

const BATCH = 1000;

type Cell = string | number | null | undefined;

// What a spreadsheet runs as a formula: a cell starting with = + - @ (or a tab or CR) once leading
// spaces (NBSP and other Unicode spaces included) are trimmed, and the same after a ; or , inside a
// cell: a spreadsheet in a locale whose list separator is ; (pt-BR, de-DE...) splits the cell there.
const FORMULA_START = /^[\s\u00a0\u2000-\u200b\u3000\ufeff]*[=+\-@\t\r]/u;
const FORMULA_AFTER_SEPARATOR = /([;,][\s\u00a0\u2000-\u200b\u3000\ufeff]*)(?=[=+\-@])/gu;

/** A text cell a spreadsheet can't run: prefixed with ', and each formula after a separator too. */
function defused(text: string): string {
  const inner = text.replace(FORMULA_AFTER_SEPARATOR, "$1'");
  return FORMULA_START.test(inner) ? `'${inner}` : inner;
}

/** One CSV line (RFC 4180 quoting); a cell a spreadsheet would run as a formula is defused with '. */
export function csvLine(cells: readonly Cell[]): string {
  return `${cells
    .map((cell) => {
      if (cell === null || cell === undefined) return "";
      const text = typeof cell === "number" ? String(cell) : defused(cell);
      return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
    })
    .join(",")}\r\n`;
}

// Without a currency an amount can't be scaled: the cell holds the minor units as stored.
const csvAmount = (amount: number | null, currency: string | null) =>
  amount === null ? null : currency ? decimalAmount(amount, currency) : String(amount);

const time = (date: Date | null) => date?.toISOString() ?? null;

export type CsvExport = { ok: true; lines: AsyncGenerator<string> } | { ok: false; message: string };

/** An events export for `role`: its CSV lines, or why the role may not filter this way (a masked role searching customers). */
export function eventsExport(pool: Pool, role: Role, filter: EventFilter, sort?: EventSort): CsvExport {
  const refusal = searchRefusal(role, filter);
  return refusal ? { ok: false, message: refusal } : { ok: true, lines: eventsCsv(pool, role, filter, sort) };
}

/** A payments export for `role`: its CSV lines, or why the role may not search this way (a masked role searching e-mails). */
export function paymentsExport(pool: Pool, role: Role, filter: PaymentFilter, sort?: PaymentSort): CsvExport {
  const refusal = searchRefusal(role, filter);
  return refusal ? { ok: false, message: refusal } : { ok: true, lines: paymentsCsv(pool, role, filter, sort) };
}

/**
 * The events a filter matches, as `role` may see them and in the explorer's order, one CSV line at a
 * time (header first): the explorer's columns in its order (received, occurred, type, account,
 * status, charge, customer, event id, tries), then the inbox id and the last error.
 */
export async function* eventsCsv(pool: Pool, role: Role, filter: EventFilter, sort?: EventSort): AsyncGenerator<string> {
  yield csvLine([
    "received_at",
    "occurred_at",
    "provider",
    "event_type",
    "account",
    "status",
    "ignored_reason",
    "charge_id",
    "customer_email",
    "event_id",
    "attempts",
    "inbox_id",
    "last_error",
  ]);
  const { where, params, orderSql } = eventsInOrder({ ...filter, searchIdsOnly: searchesIdsOnly(role) }, sort);
  const rows = cursorRows<EventListRow>(
    pool,
    `SELECT id, provider, gateway_account AS account, event_id AS "eventId", event_type AS "eventType", resource_id AS "resourceId", customer_email AS "customerEmail",
            status, ignored_reason AS "ignoredReason", attempts, occurred_at AS "occurredAt", received_at AS "receivedAt", left(last_error, 200) AS "lastError"
       FROM webhook_inbox
      WHERE ${where}
      ORDER BY ${orderSql()}`,
    params,
    BATCH,
  );
  for await (const stored of rows) {
    const row = maskEventRow(role, stored);
    yield csvLine([
      time(row.receivedAt),
      time(row.occurredAt),
      row.provider,
      row.eventType,
      row.account,
      row.status,
      row.ignoredReason,
      row.resourceId,
      row.customerEmail,
      row.eventId,
      row.attempts,
      row.id,
      row.lastError,
    ]);
  }
}

/**
 * The payments a filter matches, as `role` may see them and in the list's order, one CSV line at a
 * time (header first): the list's columns in its order (charge, account, status and its decline,
 * amounts, customer, updated), then the payment's dates and id.
 */
export async function* paymentsCsv(
  pool: Pool,
  role: Role,
  filter: PaymentFilter,
  sort: PaymentSort = "updated_desc",
): AsyncGenerator<string> {
  yield csvLine([
    "provider",
    "charge_id",
    "account",
    "status",
    "decline_code",
    "decline_message",
    "amount",
    "amount_refunded",
    "currency",
    "customer_email",
    "customer_id",
    "updated_at",
    "created_at",
    "paid_at",
    "refunded_at",
    "disputed_at",
    "last_gateway_event_at",
    "payment_id",
  ]);
  const scoped = { ...filter, searchIdsOnly: searchesIdsOnly(role) };
  const { where, params } = paymentFilterSql(scoped);
  const order = paymentOrderSql(scoped, sort, (value) => `$${params.push(value)}`);
  const rows = cursorRows<PaymentRecord & PaymentEventDates>(
    pool,
    `SELECT ${paymentColumns("p")}, ${paymentEventDatesSql()} FROM payments p WHERE ${where} ORDER BY ${order}`,
    params,
    BATCH,
  );
  for await (const stored of rows) {
    const row = maskPayment(role, stored);
    yield csvLine([
      row.provider,
      row.chargeId,
      row.account,
      row.status,
      row.declineReason?.code,
      row.declineReason?.message,
      csvAmount(row.amount, row.currency),
      csvAmount(row.amountRefunded, row.currency),
      row.currency?.toUpperCase(),
      row.customerEmail,
      row.customerId,
      time(row.updatedAt),
      time(row.createdAt),
      time(row.paidAt),
      time(row.refundedAt),
      time(row.disputedAt),
      time(row.lastGatewayEventAt),
      row.id,
    ]);
  }
}
