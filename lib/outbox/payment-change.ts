// A payment change, whole: what the outbox records of each change processing makes to a payment
// (its columns), the piece of the payment statement that records it, its public id and the JSON
// the host receives from the feed and in every push. Payments sit above the outbox and embed the
// piece in their own statement, so a change row commits exactly when its payment change does.

/** One payment change as the host sees it: a feed entry, and the `data` of a pushed message. */
export type PaymentChange = {
  id: string;
  provider: string;
  /** The gateway account the payment belongs to ("default" for an installation without accounts). */
  account: string;
  chargeId: string;
  version: number;
  status: string;
  previousStatus: string | null;
  amount: number | null;
  amountRefunded: number;
  currency: string | null;
  customer: { id: string | null; email: string | null };
  /** Why the gateway refused the payment as of this version, in its words; null once it succeeded, or when none is known. */
  declineReason: HostDeclineReason | null;
  cause: { eventId: string | null; type: string | null; occurredAt: string | null };
  committedAt: string;
  /** Only on an erasure's `customer.erased` change: the erasure and every payment it changed. */
  erasure?: ChangeErasure;
};

/** A decline reason as the host reads it: the gateway's (or issuer's) code and message, either possibly null. */
export type HostDeclineReason = { code: string | null; message: string | null };

/** What an erasure's one change tells the host: which erasure, and every payment whose customer it erased. */
export type ChangeErasure = { id: string; payments: { provider: string; account: string; chargeId: string }[] };

/** What a change records, field by field, and the payment_changes column each is kept in. */
const RECORDED = {
  paymentId: "payment_id",
  version: "version",
  provider: "provider",
  chargeId: "gateway_charge_id",
  previousStatus: "previous_status",
  status: "status",
  amount: "amount",
  amountRefunded: "amount_refunded",
  currency: "currency",
  customerId: "customer_id",
  customerEmail: "customer_email",
  inboxId: "inbox_id",
  eventId: "event_id",
  eventType: "event_type",
  occurredAt: "occurred_at",
  account: "gateway_account",
  declineReason: "decline_reason",
} as const;

export type RecordedChange = { [Field in keyof typeof RECORDED]: string } & {
  /** The ChangeErasure (jsonb) of an erasure's change; left out, null. */
  erasure?: string;
};

/** A change's fields read from the payment row `alias` as the change left it: all but its status and cause. */
export const changedPaymentSql = (alias: string) => ({
  paymentId: `${alias}.id`,
  version: `${alias}.version`,
  provider: `${alias}.provider`,
  chargeId: `${alias}.gateway_charge_id`,
  amount: `${alias}.amount`,
  currency: `${alias}.currency`,
  customerId: `${alias}.customer_id`,
  customerEmail: `${alias}.customer_email`,
  account: `${alias}.gateway_account`,
  declineReason: `${alias}.decline_reason`,
});

/** The status fields of a change that leaves the payment row `alias`'s status and refunds as they were. */
export const statusKeptSql = (alias: string) => ({
  previousStatus: `${alias}.status`,
  status: `${alias}.status`,
  amountRefunded: `${alias}.amount_refunded`,
});

/**
 * The statement piece (a CTE body) that records one change per row of `from`: each field of
 * `values` is an SQL expression over those rows (the payment's new version and state, the event
 * that caused it). The change is numbered for the feed later, once its transaction committed.
 */
export function recordChangesSql(values: RecordedChange, from: string, orderBy: string): string {
  const fields = Object.keys(RECORDED) as (keyof typeof RECORDED)[];
  const erasure = values.erasure === undefined ? { column: "", value: "" } : { column: ", erasure", value: `, ${values.erasure}` };
  return `INSERT INTO payment_changes (${fields.map((field) => RECORDED[field]).join(", ")}${erasure.column})
    SELECT ${fields.map((field) => values[field]).join(", ")}${erasure.value}
      FROM ${from}
     ORDER BY ${orderBy}`;
}

/**
 * The numbered changes after feed position `after` (an SQL expression), in feed order, at most
 * `limit`: the stretch a feed reader (the HTTP feed, a destination's fan-out) takes next. Only
 * numbered changes have a position, so a reader never steps over a change committed late.
 */
export const feedAfterSql = (after: string, limit: string) => `
  SELECT c.id, c.payment_id, c.version, c.provider, c.status, c.feed_position, ${erasedProvidersSql("c")} AS erased_providers
    FROM payment_changes c
   WHERE c.feed_position > ${after}
   ORDER BY c.feed_position
   LIMIT ${limit}`;

/** The change's public id (`webhook-id` of its pushes) for the payment_changes row of alias `c`: apart from any other id space. */
export const changeIdSql = (alias: string) => `'chg_' || ${alias}.id`;

/** A timestamptz column as the host's APIs write times: UTC, microseconds, `Z`. */
export const utcTimeSql = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** A decline_reason column (jsonb, keys optional) as a HostDeclineReason: both keys always there. */
export const declineReasonJsonSql = (column: string) =>
  `CASE WHEN ${column} IS NULL THEN NULL ELSE json_build_object('code', ${column} ->> 'code', 'message', ${column} ->> 'message') END`;

/**
 * The gateways of the payments an erasure's change (alias `alias`) lists, null on any other change:
 * a reader filtered by provider or status gets the erasure when it lists a payment of its gateways,
 * whatever the statuses (the host erases its copy of each), as the feed and the pushes both do.
 */
export const erasedProvidersSql = (alias: string) =>
  `CASE WHEN ${alias}.erasure IS NOT NULL THEN ARRAY(SELECT jsonb_array_elements(${alias}.erasure -> 'payments') ->> 'provider') END`;

const CHANGE_FIELDS = `
  'id', ${changeIdSql("c")}, 'provider', c.provider, 'account', c.gateway_account, 'chargeId', c.gateway_charge_id, 'version', c.version,
  'status', c.status, 'previousStatus', c.previous_status, 'amount', c.amount, 'amountRefunded', c.amount_refunded,
  'currency', c.currency, 'customer', json_build_object('id', c.customer_id, 'email', c.customer_email),
  'declineReason', ${declineReasonJsonSql("c.decline_reason")},
  'cause', json_build_object('eventId', c.event_id, 'type', c.event_type, 'occurredAt', ${utcTimeSql("c.occurred_at")}),
  'committedAt', ${utcTimeSql("c.committed_at")}`;

/** The payment_changes columns of alias `c` as a PaymentChange, built by the database (`erasure` only when there is one). */
export const CHANGE_JSON = `CASE WHEN c.erasure IS NULL THEN json_build_object(${CHANGE_FIELDS})
  ELSE json_build_object(${CHANGE_FIELDS}, 'erasure', c.erasure) END`;
