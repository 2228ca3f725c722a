import type { AppConfig } from "../../config/env";
import type { Queryable } from "../../db/pool";
import { decideChargeUpdate, type LedgerPayment } from "../../payments/apply-charge-update";
import type { CurrentPayment, EventTime } from "../../payments/state-machine";
import { findDriver } from "../../providers/registry";
import { ParseError, type NormalizedEvent } from "../../providers/types";
import { eventFilterSql, type EventFilter } from "../queries/event-filter";
import { ownObservation } from "../process/observe-charge";

// A bulk replay's dry run: for a sample of the payments it touches, what the worker would do to each,
// computed by the worker's own code (the driver's parse, the worker's choice of observation, the
// payments decision function) against the payment as it is now, without writing anything.

export type Breakdown = { provider: string; eventType: string; status: string; events: number };

/**
 * What the replay does to a payment: changes its status or refunds, leaves it as it is, can't be
 * known before the worker fetches the charge from the gateway (refetch-first types), or doesn't
 * apply (no driver, archived or unreadable body, host payment not registered).
 */
export type EffectOutcome = "changes" | "no_change" | "at_replay" | "blocked";

export type PaymentEffect = {
  outcome: EffectOutcome;
  provider: string;
  chargeId: string;
  paymentId: number | null;
  events: number;
  /** The payment's status now (null: not known yet) and after the replay, when that can be known. */
  from: string | null;
  to: string | null;
  fromRefunded: number | null;
  toRefunded: number | null;
  /** The payment's currency (refunds are in its minor units); null when not known yet. */
  currency: string | null;
  /** Why the outcome can't be known here, or what else happens (null when `to` says it all). */
  note: string | null;
};

export type SampleEvent = { id: number; provider: string; eventType: string; resourceId: string | null; status: string; receivedAt: Date };

export type ReplayEffects = {
  breakdown: Breakdown[];
  /** True when the breakdown counted only the first `breakdownCap` matching events. */
  breakdownCapped: boolean;
  samples: SampleEvent[];
  effects: PaymentEffect[];
  /** Payments beyond the sample are not dry-run. */
  paymentsSampled: number;
};

type EventRow = {
  id: number;
  provider: string;
  resourceId: string;
  rawBody: Buffer | null;
  headers: Record<string, string> | null;
  queryString: string | null;
  alreadyApplied: boolean;
};

type PaymentRow = {
  id: number;
  provider: string;
  chargeId: string;
  status: CurrentPayment["status"];
  amount: string | null;
  amountRefunded: string;
  currency: string | null;
  lastMicros: string | null;
  lastPrecision: EventTime["precision"] | null;
};

const later = (a: EventTime | null, b: EventTime | null): EventTime | null => (!a ? b : !b ? a : b.micros > a.micros ? b : a);

/** The effect of replaying `events` (in dispatch order) on one payment. */
function dryRun(config: AppConfig, payment: PaymentRow | undefined, provider: string, chargeId: string, events: EventRow[]): PaymentEffect {
  const driver = findDriver(provider);
  let current: LedgerPayment | null = payment
    ? {
        status: payment.status,
        amount: payment.amount === null ? null : Number(payment.amount),
        amountRefunded: Number(payment.amountRefunded),
        lastEventAt:
          payment.lastMicros !== null && payment.lastPrecision
            ? { micros: BigInt(payment.lastMicros), precision: payment.lastPrecision }
            : null,
      }
    : null;
  const effect: PaymentEffect = {
    outcome: "blocked",
    provider,
    chargeId,
    paymentId: payment?.id ?? null,
    events: events.length,
    from: current?.status ?? null,
    to: null,
    fromRefunded: current?.amountRefunded ?? null,
    toRefunded: null,
    currency: payment?.currency ?? null,
    note: null,
  };
  if (!driver) return { ...effect, note: `fails: no driver for ${provider}` };
  for (const row of events) {
    if (row.alreadyApplied) continue; // its effect is in the ledger: processed again, changes nothing
    if (!row.rawBody) return { ...effect, note: "unknown: the event's body was archived; restore it before replaying" };
    let event: NormalizedEvent;
    try {
      event = driver.parse(row.rawBody, {
        headers: row.headers ?? {},
        query: new URLSearchParams(row.queryString ?? ""),
        timeZone: config.providers[driver.name].timeZone,
      });
    } catch (error) {
      if (!(error instanceof ParseError)) throw error;
      return { ...effect, note: `fails again: the body can't be read (${error.message.slice(0, 120)})` };
    }
    if (!event.charge && !event.refetchRequired) continue; // ignored: a type that changes no payment
    const observation = ownObservation(config, driver.name, event);
    if (!observation) return { ...effect, outcome: "at_replay", note: "decided at replay time by fetching the charge from the gateway" };
    if (!current && config.providers[driver.name].paymentSource === "host") {
      return { ...effect, note: "waits, then fails, until your application registers the payment" };
    }
    const decision = decideChargeUpdate(current, observation.snapshot, observation.at);
    if (decision.action === "ignore") {
      if (current && decision.reason === "duplicate_in_meaning")
        current = { ...current, lastEventAt: later(current.lastEventAt, observation.at) };
      continue;
    }
    current = {
      ...decision.state,
      amount: current?.amount ?? observation.snapshot.amount,
      lastEventAt: later(current?.lastEventAt ?? null, observation.at),
    };
  }
  const to = current?.status ?? null;
  const toRefunded = current?.amountRefunded ?? null;
  const changes = effect.from !== to || (effect.fromRefunded !== null && effect.fromRefunded !== toRefunded);
  return { ...effect, outcome: changes ? "changes" : "no_change", to, toRefunded };
}

// How many of the newest matching events are read to find the payments to dry-run, per payment.
const SAMPLE_WINDOW_PER_PAYMENT = 20;

/**
 * The dry run of a replay of `filter` (already restricted to replayable statuses by the caller):
 * breakdown by provider, type and status, a few sample events, and the effect on up to
 * `paymentLimit` payments (those of the newest matching events), each replayed in id order as the
 * worker receives them.
 */
export async function previewReplayEffects(
  db: Queryable,
  config: AppConfig,
  filter: EventFilter,
  options: { paymentLimit?: number; sampleLimit?: number; breakdownCap?: number } = {},
): Promise<ReplayEffects> {
  const paymentLimit = options.paymentLimit ?? 50;
  const breakdownCap = options.breakdownCap ?? 100_000;
  const { where, params } = eventFilterSql(filter);
  const n = params.length;
  const [breakdown, samples, charges] = await Promise.all([
    db.query<Breakdown & { capped: boolean }>(
      `SELECT provider, event_type AS "eventType", status, count(*)::int AS events
         FROM (SELECT provider, event_type, status FROM webhook_inbox WHERE ${where} LIMIT $${n + 1}) matched
        GROUP BY provider, event_type, status
        ORDER BY count(*) DESC, provider, event_type, status`,
      [...params, breakdownCap + 1],
    ),
    db.query<SampleEvent>(
      `SELECT id, provider, event_type AS "eventType", resource_id AS "resourceId", status, received_at AS "receivedAt"
         FROM webhook_inbox WHERE ${where} ORDER BY id LIMIT $${n + 1}`,
      [...params, options.sampleLimit ?? 10],
    ),
    // The payments of the newest matching events: a window through the replayable indexes, where
    // grouping every match (hundreds of thousands at 10M rows) took seconds.
    db.query<{ provider: string; resourceId: string }>(
      `SELECT provider, resource_id AS "resourceId"
         FROM (SELECT provider, resource_id, received_at FROM webhook_inbox
                WHERE ${where} AND resource_id IS NOT NULL
                ORDER BY received_at DESC, id DESC LIMIT $${n + 2}) newest
        GROUP BY provider, resource_id ORDER BY max(received_at) DESC, provider, resource_id LIMIT $${n + 1}`,
      [...params, paymentLimit, paymentLimit * SAMPLE_WINDOW_PER_PAYMENT],
    ),
  ]);
  const providers = charges.rows.map((row) => row.provider);
  const chargeIds = charges.rows.map((row) => row.resourceId);
  const [events, payments] = await Promise.all([
    db.query<EventRow>(
      `SELECT id, provider, resource_id AS "resourceId", raw_body AS "rawBody", headers, query_string AS "queryString",
              EXISTS (SELECT 1 FROM payment_transitions t WHERE t.inbox_id = webhook_inbox.id) AS "alreadyApplied"
         FROM webhook_inbox
        WHERE ${where} AND (provider, resource_id) IN (SELECT * FROM unnest($${n + 1}::text[], $${n + 2}::text[]))
        ORDER BY id`,
      [...params, providers, chargeIds],
    ),
    db.query<PaymentRow>(
      `SELECT p.id, p.provider, p.gateway_charge_id AS "chargeId", p.status, p.amount::text AS amount, p.amount_refunded::text AS "amountRefunded", p.currency,
              (extract(epoch FROM p.last_gateway_event_at) * 1000000)::bigint::text AS "lastMicros",
              p.last_gateway_event_precision AS "lastPrecision"
         FROM payments p
        WHERE (p.provider, p.gateway_charge_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
      [providers, chargeIds],
    ),
  ]);
  const key = (provider: string, chargeId: string) => `${provider}/${chargeId}`;
  const byPayment = new Map<string, EventRow[]>();
  for (const row of events.rows)
    byPayment.set(key(row.provider, row.resourceId), [...(byPayment.get(key(row.provider, row.resourceId)) ?? []), row]);
  const paymentByKey = new Map(payments.rows.map((row) => [key(row.provider, row.chargeId), row]));
  return {
    breakdown: breakdown.rows,
    breakdownCapped: breakdown.rows.reduce((sum, row) => sum + row.events, 0) > breakdownCap,
    samples: samples.rows,
    effects: charges.rows.map((charge) =>
      dryRun(
        config,
        paymentByKey.get(key(charge.provider, charge.resourceId)),
        charge.provider,
        charge.resourceId,
        byPayment.get(key(charge.provider, charge.resourceId)) ?? [],
      ),
    ),
    paymentsSampled: charges.rows.length,
  };
}
