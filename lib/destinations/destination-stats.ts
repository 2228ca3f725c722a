import type { Queryable } from "../db/pool";
import { GONE_REASON } from "./deliver-changes";
import type { Destination } from "./manage-destinations";

export type DestinationSummary = Destination & {
  /** Share of attempts in the last hour answered 2xx; null without attempts. */
  successRateLastHour: number | null;
  p95LatencyMsLastHour: number | null;
  /** When the oldest change not yet delivered here was recorded; null when none waits. */
  oldestUndeliveredAt: Date | null;
  pending: number;
  dead: number;
};

/** A value as it crosses to a client component: its dates as ISO strings. */
type DatesAsStrings<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };

/** A summary as the console's table gets it: no creation time, dates as ISO strings (and never a secret). */
export type DestinationTableRow = DatesAsStrings<Omit<DestinationSummary, "createdAt">>;

export function destinationTableRow(summary: DestinationSummary): DestinationTableRow {
  return {
    id: summary.id,
    name: summary.name,
    url: summary.url,
    providers: summary.providers,
    statuses: summary.statuses,
    enabled: summary.enabled,
    disabledReason: summary.disabledReason,
    fromConfig: summary.fromConfig,
    breakerOpenUntil: summary.breakerOpenUntil?.toISOString() ?? null,
    successRateLastHour: summary.successRateLastHour,
    p95LatencyMsLastHour: summary.p95LatencyMsLastHour,
    oldestUndeliveredAt: summary.oldestUndeliveredAt?.toISOString() ?? null,
    pending: summary.pending,
    dead: summary.dead,
  };
}

// The oldest change this destination has not got: a pending delivery, or a change it has not even
// fanned out yet (numbered past its cursor, or not numbered at all).
export const OLDEST_UNDELIVERED = `LEAST(
    (SELECT min(c.recorded_at) FROM deliveries d JOIN payment_changes c ON c.id = d.change_id WHERE d.destination_id = t.id AND d.status = 'pending'),
    CASE WHEN t.enabled THEN (SELECT c.recorded_at FROM payment_changes c WHERE c.feed_position > t.feed_position ORDER BY c.feed_position LIMIT 1) END,
    CASE WHEN t.enabled THEN (SELECT min(c.recorded_at) FROM payment_changes c WHERE c.feed_position IS NULL) END)`;

/** Every destination with its health: success rate and p95 latency over the last hour, backlog, dead count. */
export async function listDestinationSummaries(db: Queryable): Promise<DestinationSummary[]> {
  const { rows } = await db.query<DestinationSummary>(`
    SELECT t.id, t.name, t.url, t.providers, t.statuses, t.enabled, t.disabled_reason AS "disabledReason", t.from_config AS "fromConfig",
           CASE WHEN t.breaker_open_until > now() THEN t.breaker_open_until END AS "breakerOpenUntil", t.created_at AS "createdAt",
           recent.success_rate AS "successRateLastHour", recent.p95 AS "p95LatencyMsLastHour",
           ${OLDEST_UNDELIVERED} AS "oldestUndeliveredAt",
           (SELECT count(*)::int FROM deliveries d WHERE d.destination_id = t.id AND d.status = 'pending') AS pending,
           (SELECT count(*)::int FROM deliveries d WHERE d.destination_id = t.id AND d.status = 'dead') AS dead
      FROM destinations t
      LEFT JOIN LATERAL (
        SELECT (count(*) FILTER (WHERE a.outcome = 'delivered'))::float8 / NULLIF(count(*), 0) AS success_rate,
               percentile_cont(0.95) WITHIN GROUP (ORDER BY a.latency_ms) AS p95
          FROM delivery_attempts a
         WHERE a.destination_id = t.id AND a.attempted_at > now() - interval '1 hour'
      ) recent ON true
     ORDER BY t.id`);
  return rows;
}

/** What monitoring needs of one destination: is it failing, and how far behind is it. */
export type DestinationHealth = {
  id: number;
  name: string;
  /** Its breaker tripped and no push has succeeded since (cooling down or probing). */
  circuitOpen: boolean;
  /** Switched off because it answered 410 Gone. */
  gone: boolean;
  /** Deliveries waiting (pending) for it. */
  undelivered: number;
  /** Seconds since the oldest change it has not got was recorded (0 when none waits): the lag. */
  oldestUndeliveredSeconds: number;
};

/** Every destination's failing state and backlog, for alerts, metrics and the overview. */
export async function destinationHealth(db: Queryable): Promise<DestinationHealth[]> {
  const { rows } = await db.query<DestinationHealth>(
    `SELECT t.id, t.name, t.enabled AND t.breaker_open_until IS NOT NULL AS "circuitOpen",
            NOT t.enabled AND t.disabled_reason = $1 AS gone,
            (SELECT count(*)::int FROM deliveries d WHERE d.destination_id = t.id AND d.status = 'pending') AS undelivered,
            COALESCE(extract(epoch FROM now() - ${OLDEST_UNDELIVERED}), 0)::float8 AS "oldestUndeliveredSeconds"
       FROM destinations t ORDER BY t.id`,
    [GONE_REASON],
  );
  return rows;
}
