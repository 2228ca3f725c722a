import type { Queryable } from "../../db/pool";

export type EventDetail = {
  id: number;
  provider: string;
  /** The gateway account it came for (DEFAULT_ACCOUNT without accounts). */
  account: string;
  eventId: string;
  eventIdDerived: boolean;
  eventType: string;
  resourceId: string | null;
  customerId: string | null;
  customerEmail: string | null;
  payload: unknown;
  /** Null once archived (see archivedAt) until it is restored. */
  rawBody: Buffer | null;
  archivedAt: Date | null;
  headers: Record<string, string>;
  queryString: string | null;
  occurredAt: Date | null;
  occurredAtPrecision: string | null;
  receivedAt: Date;
  status: string;
  ignoredReason: string | null;
  attempts: number;
  nextAttemptAt: Date | null;
  lastError: string | null;
  processedAt: Date | null;
  /** "delivery" (stored value: a webhook the gateway sent), or "reconcile": recovered from the gateway's API by a reconciliation run (at receivedAt). */
  source: string;
  /**
   * Set when the stored body is a redaction (an erasure, PII_AT_REST=redact): when, the original
   * bytes' SHA-256, and when their signature was verified (the redacted bytes can't be verified).
   */
  redaction: { at: Date; originalSha256: string | null; signatureVerifiedAt: Date | null } | null;
};

export type AttemptRow = {
  attempt: number;
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number | null;
  outcome: string;
  error: string | null;
  worker: string | null;
};

/** One event of a payment's timeline, with what it did to the payment (if anything). */
export type TimelineEntry = {
  id: number;
  eventType: string;
  occurredAt: Date | null;
  receivedAt: Date;
  status: string;
  ignoredReason: string | null;
  /** The gateway never sent it: a reconciliation run recovered it (at receivedAt). */
  recovered: boolean;
  applied: { fromStatus: string | null; toStatus: string; source: string } | null;
  /**
   * The facts of the payment it supplied (facts_from's names: amount, currency, customerId,
   * customerEmail, account): its effect, and its change told to the host, when its status moved nothing.
   */
  filled: string[];
};

export async function getEvent(db: Queryable, id: number): Promise<EventDetail | null> {
  const { rows } = await db.query<
    Omit<EventDetail, "redaction"> & { redactedAt: Date | null; originalSha256: string | null; signatureVerifiedAt: Date | null }
  >(
    `SELECT id, provider, gateway_account AS account, event_id AS "eventId", event_id_derived AS "eventIdDerived", event_type AS "eventType",
            resource_id AS "resourceId", customer_id AS "customerId", customer_email AS "customerEmail", payload,
            raw_body AS "rawBody", headers, query_string AS "queryString", occurred_at AS "occurredAt",
            occurred_at_precision AS "occurredAtPrecision", received_at AS "receivedAt", status,
            ignored_reason AS "ignoredReason", attempts, next_attempt_at AS "nextAttemptAt",
            last_error AS "lastError", processed_at AS "processedAt", archived_at AS "archivedAt", source,
            redacted_at AS "redactedAt", original_sha256 AS "originalSha256", signature_verified_at AS "signatureVerifiedAt"
       FROM webhook_inbox WHERE id = $1`,
    [id],
  );
  if (!rows[0]) return null;
  const { redactedAt, originalSha256, signatureVerifiedAt, ...event } = rows[0];
  return { ...event, redaction: redactedAt ? { at: redactedAt, originalSha256, signatureVerifiedAt } : null };
}

export async function listAttempts(db: Queryable, inboxId: number): Promise<AttemptRow[]> {
  const { rows } = await db.query<AttemptRow>(
    `SELECT attempt, started_at AS "startedAt", finished_at AS "finishedAt", duration_ms AS "durationMs",
            outcome, error, worker
       FROM processing_attempts WHERE inbox_id = $1 ORDER BY attempt, id`,
    [inboxId],
  );
  return rows;
}

/**
 * Every event of one resource (a payment) in the order the gateway says they happened, with the
 * transition each one applied and the facts it supplied, or the reason it was ignored. Bounded: a
 * resource with thousands of events shows its latest `limit`.
 */
export async function resourceTimeline(db: Queryable, provider: string, resourceId: string, limit = 500): Promise<TimelineEntry[]> {
  const { rows } = await db.query<
    Omit<TimelineEntry, "applied"> & { fromStatus: string | null; toStatus: string | null; source: string | null }
  >(
    `SELECT * FROM (
       SELECT i.id, i.event_type AS "eventType", i.occurred_at AS "occurredAt", i.received_at AS "receivedAt",
              i.status, i.ignored_reason AS "ignoredReason", i.source = 'reconcile' AS recovered,
              t.from_status AS "fromStatus", t.to_status AS "toStatus", t.source,
              ARRAY(SELECT f.key FROM jsonb_each(p.facts_from) f WHERE (f.value->>'inboxId')::bigint = i.id ORDER BY f.key) AS filled
         FROM webhook_inbox i
         LEFT JOIN payment_transitions t ON t.inbox_id = i.id
         LEFT JOIN payments p ON p.provider = i.provider AND p.gateway_charge_id = i.resource_id
        WHERE i.provider = $1 AND i.resource_id = $2
        ORDER BY COALESCE(i.occurred_at, i.received_at) DESC, i.id DESC
        LIMIT $3
     ) latest ORDER BY COALESCE("occurredAt", "receivedAt"), id`,
    [provider, resourceId, limit],
  );
  return rows.map(({ fromStatus, toStatus, source, ...row }) => ({
    ...row,
    applied: toStatus ? { fromStatus, toStatus, source: source! } : null,
  }));
}
