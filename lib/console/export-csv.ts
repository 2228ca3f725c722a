import type { Role } from "../auth/permissions";
import { decimalAmount } from "../canonical/money";
import type { Queryable } from "../db/pool";
import { eventFilterSql, type EventFilter } from "../inbox/queries/event-filter";
import type { EventListRow } from "../inbox/queries/list-events";
import { paymentColumns, type PaymentRecord } from "../payments/get-payment";
import { paymentEventDatesSql, paymentFilterSql, type PaymentEventDates, type PaymentFilter } from "../payments/search-payments";
import { maskEventRow, maskPayment, searchesIdsOnly, searchRefusal } from "../privacy/mask-for-role";

// Exports of the console's lists as CSV, read in keyset batches (newest id first) and yielded line
// by line: no row cap, and the web holds one batch at a time however large the export.

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

/** Rows of a keyset query, a batch at a time, until it is exhausted. */
async function* batches<Row extends { id: number }>(read: (afterId: number | null) => Promise<Row[]>): AsyncGenerator<Row> {
  let afterId: number | null = null;
  for (;;) {
    const rows = await read(afterId);
    yield* rows;
    if (rows.length < BATCH) return;
    afterId = rows.at(-1)!.id;
  }
}

// Without a currency an amount can't be scaled: the cell holds the minor units as stored.
const csvAmount = (amount: number | null, currency: string | null) =>
  amount === null ? null : currency ? decimalAmount(amount, currency) : String(amount);

const time = (date: Date | null) => date?.toISOString() ?? null;

export type CsvExport = { ok: true; lines: AsyncGenerator<string> } | { ok: false; message: string };

/** An events export for `role`: its CSV lines, or why the role may not filter this way (a masked role searching customers). */
export function eventsExport(db: Queryable, role: Role, filter: EventFilter): CsvExport {
  const refusal = searchRefusal(role, filter);
  return refusal ? { ok: false, message: refusal } : { ok: true, lines: eventsCsv(db, role, filter) };
}

/** A payments export for `role`: its CSV lines, or why the role may not search this way (a masked role searching e-mails). */
export function paymentsExport(db: Queryable, role: Role, filter: PaymentFilter): CsvExport {
  const refusal = searchRefusal(role, filter);
  return refusal ? { ok: false, message: refusal } : { ok: true, lines: paymentsCsv(db, role, filter) };
}

/** The events a filter matches, as `role` may see them, one CSV line at a time (header first). */
export async function* eventsCsv(db: Queryable, role: Role, filter: EventFilter): AsyncGenerator<string> {
  yield csvLine([
    "inbox_id",
    "received_at",
    "occurred_at",
    "provider",
    "event_type",
    "event_id",
    "charge_id",
    "customer_email",
    "status",
    "ignored_reason",
    "attempts",
    "last_error",
    // Last, as later columns come: a reader of the earlier columns by position is not moved.
    "account",
  ]);
  const { where, params } = eventFilterSql({ ...filter, searchIdsOnly: searchesIdsOnly(role) });
  const rows = batches((afterId) =>
    db
      .query<EventListRow>(
        `SELECT id, provider, gateway_account AS account, event_id AS "eventId", event_type AS "eventType", resource_id AS "resourceId", customer_email AS "customerEmail",
                status, ignored_reason AS "ignoredReason", attempts, occurred_at AS "occurredAt", received_at AS "receivedAt", left(last_error, 200) AS "lastError"
           FROM webhook_inbox
          WHERE ${where} AND ($${params.length + 1}::bigint IS NULL OR id < $${params.length + 1})
          ORDER BY id DESC LIMIT ${BATCH}`,
        [...params, afterId],
      )
      .then((result) => result.rows),
  );
  for await (const stored of rows) {
    const row = maskEventRow(role, stored);
    yield csvLine([
      row.id,
      time(row.receivedAt),
      time(row.occurredAt),
      row.provider,
      row.eventType,
      row.eventId,
      row.resourceId,
      row.customerEmail,
      row.status,
      row.ignoredReason,
      row.attempts,
      row.lastError,
      row.account,
    ]);
  }
}

/**
 * The payments a filter matches, as `role` may see them, one CSV line at a time (header first): the
 * list's columns in its order (charge, status, amounts, customer, updated), then the payment's dates.
 */
export async function* paymentsCsv(db: Queryable, role: Role, filter: PaymentFilter): AsyncGenerator<string> {
  yield csvLine([
    "provider",
    "charge_id",
    "status",
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
    "account",
    "decline_code",
    "decline_message",
  ]);
  const { where, params } = paymentFilterSql({ ...filter, searchIdsOnly: searchesIdsOnly(role) });
  const rows = batches((afterId) =>
    db
      .query<PaymentRecord & PaymentEventDates>(
        `SELECT ${paymentColumns("p")}, ${paymentEventDatesSql()} FROM payments p
          WHERE ${where} AND ($${params.length + 1}::bigint IS NULL OR p.id < $${params.length + 1})
          ORDER BY p.id DESC LIMIT ${BATCH}`,
        [...params, afterId],
      )
      .then((result) => result.rows),
  );
  for await (const stored of rows) {
    const row = maskPayment(role, stored);
    yield csvLine([
      row.provider,
      row.chargeId,
      row.status,
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
      row.account,
      row.declineReason?.code,
      row.declineReason?.message,
    ]);
  }
}
