import { STATUS_CODES } from "node:http";
import type { Queryable } from "../db/pool";
import { OLDEST_UNDELIVERED } from "./destination-stats";

/**
 * Where a destination stands, worst first: switched off (a person, or a 410 Gone), paused by a person
 * (nothing sent, deliveries queue), its circuit open (failures in a row tripped it: one probe at a
 * time), failing below the circuit's threshold (retrying), or healthy.
 */
export type DestinationCondition = "disabled" | "paused" | "circuit_open" | "retrying" | "healthy";

export type DestinationState = {
  id: number;
  name: string;
  url: string;
  fromConfig: boolean;
  condition: DestinationCondition;
  disabledReason: string | null;
  paused: { at: Date; by: string } | null;
  consecutiveFailures: number;
  /** Set while the circuit is open: when it opened, when it lets the next probe go (null: due now), a probe in flight. */
  circuit: { openedAt: Date | null; probesAt: Date | null; probing: boolean } | null;
  /** The last failed attempt: its status and a short reason (never the answer's body). */
  lastError: { at: Date; statusCode: number | null; reason: string } | null;
  undelivered: number;
  oldestUndeliveredAt: Date | null;
  /** The database's clock, which every time here is compared with. */
  now: Date;
};

const REASON_CHARS = 120;

/** A failed attempt in a few words: its error (no answer, refused address, redirect), else the status's name. */
export function shortReason(statusCode: number | null, error: string | null): string {
  if (error) return error.length > REASON_CHARS ? `${error.slice(0, REASON_CHARS - 1)}…` : error;
  if (statusCode === null) return "no answer";
  return STATUS_CODES[statusCode] ?? "unexpected status";
}

/** One destination's state for its console header; null when there is no such destination. */
export async function getDestinationState(db: Queryable, id: number): Promise<DestinationState | null> {
  const { rows } = await db.query<{
    id: number;
    name: string;
    url: string;
    from_config: boolean;
    enabled: boolean;
    disabled_reason: string | null;
    paused_at: Date | null;
    paused_by: string | null;
    consecutive_failures: number;
    breaker_open_until: Date | null;
    breaker_opened_at: Date | null;
    probing: boolean;
    error_at: Date | null;
    error_status: number | null;
    error_text: string | null;
    undelivered: number;
    oldest: Date | null;
    now: Date;
  }>(
    `SELECT t.id, t.name, t.url, t.from_config, t.enabled, t.disabled_reason, t.paused_at, t.paused_by, t.consecutive_failures,
            t.breaker_open_until, t.breaker_opened_at,
            -- The probe's claim leases it until the breaker's new time, in one statement: a delivery
            -- still in flight when the breaker tripped is leased for less than the cooldown.
            EXISTS (SELECT 1 FROM deliveries d WHERE d.destination_id = t.id AND d.status = 'pending' AND d.leased_until >= now()
                       AND d.leased_until >= t.breaker_open_until) AS probing,
            failed.attempted_at AS error_at, failed.status_code AS error_status, failed.error AS error_text,
            (SELECT count(*)::int FROM deliveries d WHERE d.destination_id = t.id AND d.status = 'pending') AS undelivered,
            ${OLDEST_UNDELIVERED} AS oldest, now() AS now
       FROM destinations t
       LEFT JOIN LATERAL (
         SELECT a.attempted_at, a.status_code, a.error FROM delivery_attempts a
          WHERE a.destination_id = t.id AND a.outcome <> 'delivered' ORDER BY a.id DESC LIMIT 1
       ) failed ON true
      WHERE t.id = $1`,
    [id],
  );
  const row = rows[0];
  if (!row) return null;
  const circuitOpen = row.breaker_open_until !== null;
  const condition: DestinationCondition = !row.enabled
    ? "disabled"
    : row.paused_at
      ? "paused"
      : circuitOpen
        ? "circuit_open"
        : row.consecutive_failures > 0
          ? "retrying"
          : "healthy";
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    fromConfig: row.from_config,
    condition,
    disabledReason: row.enabled ? null : row.disabled_reason,
    paused: row.paused_at ? { at: row.paused_at, by: row.paused_by ?? "someone" } : null,
    consecutiveFailures: row.consecutive_failures,
    circuit: circuitOpen
      ? {
          openedAt: row.breaker_opened_at,
          probesAt: row.breaker_open_until! > row.now && !row.probing ? row.breaker_open_until : null,
          probing: row.probing,
        }
      : null,
    lastError: row.error_at
      ? { at: row.error_at, statusCode: row.error_status, reason: shortReason(row.error_status, row.error_text) }
      : null,
    undelivered: row.undelivered,
    oldestUndeliveredAt: row.oldest,
    now: row.now,
  };
}

/** What a pending delivery waits on, as its own row knows it. */
export type PendingDelivery = {
  status: string;
  nextAttemptAt: Date | null;
  /** Leased by a worker: being sent. */
  leased: boolean;
  /** An earlier version of its payment still pending for this destination, which goes first. */
  waitsForVersion: number | null;
};

/** When a delivery goes next: a time (never a past one) or, when no time can be given, what it waits for. */
export type NextTry = { at: Date | null; waitsFor: string | null };

/**
 * A pending delivery's next try as the destination will let it go. Its own `next_attempt_at` is only
 * its backoff: while the circuit is open, the destination is paused or switched off, or an earlier
 * version goes first, that time passes and nothing is sent, so the page says what it waits for.
 */
export function nextTry(delivery: PendingDelivery, state: Pick<DestinationState, "condition" | "circuit" | "now">): NextTry | null {
  if (delivery.status !== "pending") return null;
  if (delivery.leased) return { at: null, waitsFor: "being sent now" };
  if (state.condition === "disabled") return { at: null, waitsFor: "the destination to be switched on" };
  if (state.condition === "paused") return { at: null, waitsFor: "the destination to be resumed" };
  if (delivery.waitsForVersion !== null) return { at: null, waitsFor: `version ${delivery.waitsForVersion} of its payment to go first` };
  const due = delivery.nextAttemptAt !== null && delivery.nextAttemptAt > state.now ? delivery.nextAttemptAt : null;
  if (state.circuit) {
    if (state.circuit.probing) return { at: null, waitsFor: "the circuit's probe in flight to succeed" };
    const probesAt = state.circuit.probesAt;
    if (!probesAt) return { at: due, waitsFor: "the circuit's next probe (due now) to succeed" };
    return { at: due && due > probesAt ? due : probesAt, waitsFor: "the circuit's probe at this time to succeed" };
  }
  return due ? { at: due, waitsFor: null } : { at: null, waitsFor: "a worker (due now)" };
}
