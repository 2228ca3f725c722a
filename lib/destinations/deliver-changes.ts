import type { AppConfig } from "../config/env";
import { withTransaction, type Pool, type Queryable } from "../db/pool";
import { storableText } from "../request/storable-text";
import { CHANGE_JSON, type PaymentChange } from "../outbox/payment-change";
import { CUSTOMER_ERASED } from "../outbox/redact-changes";
import { postMessage, type PostResult } from "./post-message";
import { signedHeaders } from "./sign-message";

export type DestinationsConfig = AppConfig["destinations"];

/** A delivery this worker holds (its lease) and is about to send. */
export type ClaimedDelivery = {
  id: number;
  destinationId: number;
  destinationName: string;
  attempts: number;
  url: string;
  secrets: string[];
  change: PaymentChange;
};

export type DeliveryOutcome = "delivered" | "failed" | "gone";

export type SentDelivery = { claimed: ClaimedDelivery; outcome: DeliveryOutcome; result: PostResult };

/** How long a claimed delivery stays with its worker: long enough to send it, short enough that a killed worker's deliveries go out soon. */
export const leaseSeconds = (config: DestinationsConfig) => (2 * config.timeoutMs) / 1000 + 5;

// A due delivery: pending, its time come, not leased, and its payment has no earlier version still
// pending for the same destination (a payment's versions go out one after the other; other payments
// pass a stuck one).
const DUE = `
  d.status = 'pending' AND d.next_attempt_at <= now() AND (d.leased_until IS NULL OR d.leased_until < now())
  AND NOT EXISTS (SELECT 1 FROM deliveries e
                   WHERE e.destination_id = d.destination_id AND e.payment_id = d.payment_id
                     AND e.status = 'pending' AND e.version < d.version)`;

// Due deliveries of enabled, unpaused destinations whose breaker is closed, plus one probe for each destination
// whose breaker tripped ($3 consecutive failures) and cooled down with nothing of it in flight. Probing
// locks the destination row and reopens its breaker for the probe's lease: a concurrent claim skips
// the locked row, or re-reads it once committed and finds the breaker open, so one probe is in flight
// across all workers (a killed prober's lease ends and the next probe goes). Each delivery is leased
// and its attempt counted before anything is sent, so a worker killed mid-send neither loses it nor
// retries it forever.
const CLAIM = `
  WITH probing AS (
    SELECT t.id FROM destinations t
     WHERE t.enabled AND t.paused_at IS NULL AND t.consecutive_failures >= $3 AND (t.breaker_open_until IS NULL OR t.breaker_open_until <= now())
       AND NOT EXISTS (SELECT 1 FROM deliveries e WHERE e.destination_id = t.id AND e.status = 'pending' AND e.leased_until >= now())
       FOR NO KEY UPDATE SKIP LOCKED
  ), flowing AS (
    SELECT d.id, d.next_attempt_at FROM deliveries d JOIN destinations t ON t.id = d.destination_id
     WHERE ${DUE}
       AND t.enabled AND t.paused_at IS NULL AND t.consecutive_failures < $3 AND (t.breaker_open_until IS NULL OR t.breaker_open_until <= now())
     ORDER BY d.next_attempt_at, d.id
     LIMIT $1
       FOR UPDATE OF d SKIP LOCKED
  ), probes AS (
    SELECT probe.id, probe.next_attempt_at FROM probing CROSS JOIN LATERAL (
      SELECT d.id, d.next_attempt_at FROM deliveries d WHERE d.destination_id = probing.id AND ${DUE}
       ORDER BY d.next_attempt_at, d.id LIMIT 1 FOR UPDATE SKIP LOCKED) probe
  ), due AS (
    SELECT * FROM flowing UNION ALL SELECT * FROM probes ORDER BY next_attempt_at, id LIMIT $1
  ), claimed AS (
    UPDATE deliveries d SET attempts = d.attempts + 1, leased_until = now() + make_interval(secs => $2)
      FROM due WHERE d.id = due.id
    RETURNING d.id, d.destination_id, d.change_id, d.attempts
  ), probed AS (
    UPDATE destinations t SET breaker_open_until = now() + make_interval(secs => $2)
     WHERE t.id IN (SELECT id FROM probing) AND t.id IN (SELECT destination_id FROM claimed)
  )
  SELECT claimed.id, claimed.destination_id, claimed.attempts, t.name, t.url, t.secret,
         CASE WHEN t.previous_secret_until > now() THEN t.previous_secret END AS previous_secret, ${CHANGE_JSON} AS change
    FROM claimed JOIN destinations t ON t.id = claimed.destination_id JOIN payment_changes c ON c.id = claimed.change_id`;

export async function claimDeliveries(db: Queryable, config: DestinationsConfig, limit: number): Promise<ClaimedDelivery[]> {
  if (limit <= 0) return [];
  const { rows } = await db.query<{
    id: number;
    destination_id: number;
    attempts: number;
    name: string;
    url: string;
    secret: string;
    previous_secret: string | null;
    change: PaymentChange;
  }>(CLAIM, [limit, leaseSeconds(config), config.breakerFailures]);
  return rows.map((row) => ({
    id: row.id,
    destinationId: row.destination_id,
    destinationName: row.name,
    attempts: row.attempts,
    url: row.url,
    secrets: row.previous_secret ? [row.secret, row.previous_secret] : [row.secret],
    change: row.change,
  }));
}

/**
 * The body of a pushed change (Standard Webhooks: a type and its data). An erasure's change is a
 * `customer.erased` (one per erasure, its `data.erasure.payments` every payment it changed): the host
 * erases its copy of those payments' customer.
 */
export const messageBody = (change: PaymentChange) =>
  JSON.stringify({
    type: change.cause.type === CUSTOMER_ERASED ? CUSTOMER_ERASED : "payment.updated",
    timestamp: change.committedAt,
    data: change,
  });

export function outcomeOf(result: PostResult): DeliveryOutcome {
  if (result.statusCode === 410) return "gone";
  return result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300 ? "delivered" : "failed";
}

/** Sends one claimed delivery, signed; the change id is the message id, the same on every retry. */
export async function sendDelivery(claimed: ClaimedDelivery, config: DestinationsConfig): Promise<SentDelivery> {
  const body = messageBody(claimed.change);
  const result = await postMessage(claimed.url, body, signedHeaders(claimed.change.id, body, claimed.secrets), config);
  if (result.statusCode !== null && result.statusCode >= 300 && result.statusCode < 400) {
    result.error = "answered with a redirect, which is not followed";
  }
  return { claimed, outcome: outcomeOf(result), result };
}

/** Seconds until retry n (1-based) with +-25% jitter, or null when n is past the schedule (dead). */
export function retryInSeconds(config: DestinationsConfig, attempts: number, random = Math.random): number | null {
  const delay = config.retryDelaysSeconds[attempts - 1];
  if (delay === undefined) return null;
  return delay * (0.75 + random() * 0.5);
}

// Every attempt is recorded; a delivery still leased by this attempt (the attempt count is the lease
// token) becomes delivered, dead, or pending again with its next time. 410 leaves it pending: the
// destination is switched off, and it goes out if the destination is switched back on.
const SETTLE = `
  WITH sent AS (
    SELECT * FROM unnest($1::bigint[], $2::int[], $3::text[], $4::int[], $5::int[], $6::text[], $7::text[], $8::float8[], $9::text[], $10::text[])
      AS s(delivery_id, attempts, outcome, status_code, latency_ms, excerpt, error, retry_in, request_headers, response_headers)
  ), recorded AS (
    INSERT INTO delivery_attempts (delivery_id, destination_id, outcome, status_code, latency_ms, response_excerpt, error, request_headers, response_headers)
    SELECT s.delivery_id, d.destination_id, s.outcome, s.status_code, s.latency_ms, s.excerpt, s.error, s.request_headers::jsonb, s.response_headers::jsonb
      FROM sent s JOIN deliveries d ON d.id = s.delivery_id
  )
  UPDATE deliveries d
     SET status = CASE WHEN s.outcome = 'delivered' THEN 'delivered'
                       WHEN s.outcome = 'failed' AND s.retry_in IS NULL THEN 'dead' ELSE 'pending' END,
         finished_at = CASE WHEN s.outcome = 'delivered' OR (s.outcome = 'failed' AND s.retry_in IS NULL) THEN now() END,
         next_attempt_at = now() + make_interval(secs => COALESCE(s.retry_in, 0)),
         leased_until = NULL,
         last_error = s.error
    FROM sent s
   WHERE d.id = s.delivery_id AND d.attempts = s.attempts AND d.status = 'pending'
  RETURNING d.id, d.status`;

// The breaker is per destination and shared by every worker: consecutive failed attempts open it
// for the cooldown (breaker_opened_at keeps when it first opened, through its probes); then CLAIM sends one probe at a time, whose success closes it and whose failure
// reopens it for another cooldown. A 410 switches the destination off; `gone` is reported by the
// statement that switched it off (its row locked first, so the prior state read is the latest), once.
const UPDATE_BREAKERS = `
  WITH tally AS (
    SELECT * FROM unnest($1::bigint[], $2::int[], $3::bool[], $4::bool[]) AS t(id, failures, succeeded, gone)
  ), prior AS (
    SELECT id, enabled FROM destinations WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE
  )
  UPDATE destinations d
     SET consecutive_failures = CASE WHEN t.succeeded THEN 0 ELSE d.consecutive_failures + t.failures END,
         breaker_open_until = CASE WHEN t.succeeded THEN NULL
                                   WHEN d.consecutive_failures + t.failures >= $5 THEN now() + make_interval(secs => $6)
                                   ELSE d.breaker_open_until END,
         breaker_opened_at = CASE WHEN t.succeeded THEN NULL
                                  WHEN d.consecutive_failures + t.failures >= $5 THEN COALESCE(d.breaker_opened_at, now())
                                  ELSE d.breaker_opened_at END,
         enabled = d.enabled AND NOT t.gone,
         disabled_reason = CASE WHEN t.gone THEN $7 ELSE d.disabled_reason END,
         updated_at = CASE WHEN t.gone THEN now() ELSE d.updated_at END
    FROM tally t JOIN prior p ON p.id = t.id
   WHERE d.id = t.id
  RETURNING d.id, d.name, d.breaker_open_until > now() AND d.consecutive_failures - t.failures < $5 AS opened, t.gone AND p.enabled AS gone`;

/** A destination switched off because it answered 410 Gone. */
export type GoneDestination = { id: number; name: string };

export const GONE_REASON = "the destination answered 410 Gone";

/** The destinations still off since they answered 410 Gone (until someone switches them on or off). */
export async function listGoneDestinations(db: Queryable): Promise<GoneDestination[]> {
  const { rows } = await db.query<GoneDestination>(
    "SELECT id, name FROM destinations WHERE NOT enabled AND disabled_reason = $1 ORDER BY id",
    [GONE_REASON],
  );
  return rows;
}

export type SettleReport = { dead: SentDelivery[]; breakersOpened: number[]; gone: GoneDestination[] };

/** Records a batch of sent deliveries and what they did to their destinations' breakers, in one transaction. */
export async function settleDeliveries(pool: Pool, config: DestinationsConfig, sent: readonly SentDelivery[]): Promise<SettleReport> {
  if (sent.length === 0) return { dead: [], breakersOpened: [], gone: [] };
  const retries = sent.map(({ claimed, outcome }) => (outcome === "failed" ? retryInSeconds(config, claimed.attempts) : 0));
  const tally = new Map<number, { failures: number; succeeded: boolean; gone: boolean }>();
  for (const { claimed, outcome } of sent) {
    const entry = tally.get(claimed.destinationId) ?? { failures: 0, succeeded: false, gone: false };
    if (outcome === "delivered") entry.succeeded = true;
    else entry.failures += 1;
    if (outcome === "gone") entry.gone = true;
    tally.set(claimed.destinationId, entry);
  }
  return withTransaction(pool, async (tx) => {
    const { rows: settled } = await tx.query<{ id: number; status: string }>(SETTLE, [
      sent.map(({ claimed }) => claimed.id),
      sent.map(({ claimed }) => claimed.attempts),
      sent.map(({ outcome }) => outcome),
      sent.map(({ result }) => result.statusCode),
      sent.map(({ result }) => result.latencyMs),
      sent.map(({ result }) => (result.excerpt === null ? null : storableText(result.excerpt))),
      sent.map(({ result }) => (result.error === null ? null : storableText(result.error).slice(0, 300))),
      retries,
      sent.map(({ result }) => (result.requestHeaders ? JSON.stringify(result.requestHeaders) : null)),
      sent.map(({ result }) => (result.responseHeaders ? JSON.stringify(result.responseHeaders) : null)),
    ]);
    const ids = [...tally.keys()];
    const { rows: breakers } = await tx.query<{ id: number; name: string; opened: boolean; gone: boolean }>(UPDATE_BREAKERS, [
      ids,
      ids.map((id) => tally.get(id)!.failures),
      ids.map((id) => tally.get(id)!.succeeded),
      ids.map((id) => tally.get(id)!.gone),
      config.breakerFailures,
      config.breakerCooldownSeconds,
      GONE_REASON,
    ]);
    const dead = new Set(settled.filter(({ status }) => status === "dead").map(({ id }) => id));
    return {
      dead: sent.filter(({ claimed }) => dead.has(claimed.id)),
      breakersOpened: breakers.filter(({ opened }) => opened).map(({ id }) => id),
      gone: breakers.filter(({ gone }) => gone).map(({ id, name }) => ({ id, name })),
    };
  });
}
