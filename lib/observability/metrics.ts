import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

// Prometheus metrics of this process. Counters live in the process that counts (ingest counters in
// the web server, processing and refetch counters in each worker); backlog gauges are read from the
// database at scrape time, so any process reports the same values.

/**
 * Accounts the pending gauge names at most: an account label on every counter would make a series
 * per account and label set (10,000 accounts: over 10^5 per process); the few with the most
 * waiting are what an operator acts on, and the console filters the rest (docs/decisions.md).
 */
export const PENDING_ACCOUNTS_SHOWN = 10;

/** What a scrape reads of a circuit breaker (lib/http's, which reports itself here). */
export type BreakerState = { readonly state: "closed" | "half_open" | "open" };

export type IngestResult =
  "stored" | "stored_failed" | "duplicate" | "rejected" | "not_configured" | "unverifiable" | "unknown_account" | "account_unavailable";

function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "webhook_inbox_process_" });
  const breakers = new Map<string, BreakerState>();
  const BREAKER_STATES = { closed: 0, half_open: 1, open: 2 } as const;
  return {
    registry,
    breakers,
    ingestTotal: new Counter({
      name: "webhook_inbox_ingest_total",
      help: "Webhooks answered by the ingest route, by provider and result (stored, stored_failed, duplicate, rejected, not_configured, unverifiable, unknown_account, account_unavailable).",
      labelNames: ["provider", "result"] as const,
      registers: [registry],
    }),
    ingestSeconds: new Histogram({
      name: "webhook_inbox_ingest_duration_seconds",
      help: "Time from reading the body to the answer, per provider.",
      labelNames: ["provider"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    settledTotal: new Counter({
      name: "webhook_inbox_events_settled_total",
      help: "Events settled by a worker, by provider, status (processed, ignored, failed) and ignored reason.",
      labelNames: ["provider", "status", "reason"] as const,
      registers: [registry],
    }),
    attemptSeconds: new Histogram({
      name: "webhook_inbox_attempt_duration_seconds",
      help: "Processing attempt duration, by outcome (processed, ignored, failed, retry, deferred, skipped, error).",
      labelNames: ["outcome"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    refetchTotal: new Counter({
      name: "webhook_inbox_refetch_calls_total",
      help: "Calls to a gateway's API (refetch), by provider.",
      labelNames: ["provider"] as const,
      registers: [registry],
    }),
    refetchErrors: new Counter({
      name: "webhook_inbox_refetch_errors_total",
      help: "Refetch calls that failed (timeout, network, 4xx/5xx, circuit open), by provider.",
      labelNames: ["provider"] as const,
      registers: [registry],
    }),
    breakerState: new Gauge({
      name: "webhook_inbox_refetch_breaker_state",
      help: "Circuit breaker of each gateway API in this process: 0 closed, 1 half-open, 2 open.",
      labelNames: ["provider"] as const,
      registers: [registry],
      collect() {
        for (const [provider, breaker] of breakers) this.set({ provider }, BREAKER_STATES[breaker.state]);
      },
    }),
    queueJobs: new Gauge({
      name: "webhook_inbox_queue_jobs",
      help: "Jobs in the webhooks queue by state (ready, deferred, active), read at scrape time.",
      labelNames: ["state"] as const,
      registers: [registry],
    }),
    reconcileRecovered: new Gauge({
      name: "webhook_inbox_reconcile_recovered_events",
      help: "What reconciliation recovered over all recorded runs, by provider and kind (missed: events the gateway never sent, ingested; repaired: payments in another state than the gateway's), read at scrape time.",
      labelNames: ["provider", "kind"] as const,
      registers: [registry],
    }),
    pendingEvents: new Gauge({
      name: "webhook_inbox_pending_events",
      help: "Inbox events pending, read at scrape time.",
      registers: [registry],
    }),
    pendingByAccount: new Gauge({
      name: "webhook_inbox_pending_events_by_account",
      help: `Inbox events pending for the ${PENDING_ACCOUNTS_SHOWN} gateway accounts (besides default) with most of them, by provider and account, read at scrape time.`,
      labelNames: ["provider", "account"] as const,
      registers: [registry],
    }),
    failedEvents: new Gauge({
      name: "webhook_inbox_failed_events",
      help: "Inbox events failed, read at scrape time.",
      registers: [registry],
    }),
    deliveriesTotal: new Counter({
      name: "webhook_inbox_destination_deliveries_total",
      help: "Attempts to push a change to a destination, by destination and outcome (delivered, failed, gone); dead: deliveries that ran out of retries.",
      labelNames: ["destination", "outcome"] as const,
      registers: [registry],
    }),
    deliverySeconds: new Histogram({
      name: "webhook_inbox_destination_delivery_duration_seconds",
      help: "Time from sending a change to a destination to its answer (or timeout), by destination.",
      labelNames: ["destination"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    deliveryLagSeconds: new Gauge({
      name: "webhook_inbox_destination_lag_seconds",
      help: "Age of the oldest change not yet delivered to each destination (0 when none), read at scrape time.",
      labelNames: ["destination"] as const,
      registers: [registry],
    }),
    destinationUndelivered: new Gauge({
      name: "webhook_inbox_destination_undelivered",
      help: "Deliveries waiting (pending) for each destination, read at scrape time.",
      labelNames: ["destination"] as const,
      registers: [registry],
    }),
    destinationFailing: new Gauge({
      name: "webhook_inbox_destination_failing",
      help: "1 while a destination is failing, by reason: circuit_open (its breaker tripped, no push has succeeded since) or gone (switched off after a 410); read at scrape time.",
      labelNames: ["destination", "reason"] as const,
      registers: [registry],
    }),
    feedWaitingReads: new Gauge({
      name: "webhook_inbox_feed_waiting_reads",
      help: "Change-feed reads (wait=N) this process holds until a change or their deadline.",
      registers: [registry],
    }),
    workersAlive: new Gauge({
      name: "webhook_inbox_workers_alive",
      help: "Workers alive (a heartbeat in the last 15 s, not stopping), read at scrape time.",
      registers: [registry],
    }),
    oldestPendingSeconds: new Gauge({
      name: "webhook_inbox_oldest_pending_age_seconds",
      help: "Age of the oldest pending event (0 when none), read at scrape time.",
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

// One set per process, on globalThis: Next bundles this module into each route separately.
const holder = globalThis as typeof globalThis & { __webhookInboxMetrics?: Metrics };

export function metrics(): Metrics {
  holder.__webhookInboxMetrics ??= createMetrics();
  return holder.__webhookInboxMetrics;
}

/** Counts one answered webhook and how long it took. */
export function recordIngest(provider: string, result: IngestResult, seconds: number): void {
  const m = metrics();
  m.ingestTotal.inc({ provider, result });
  m.ingestSeconds.observe({ provider }, seconds);
}

export function recordSettled(provider: string, status: "processed" | "ignored" | "failed", reason: string | null): void {
  metrics().settledTotal.inc({ provider, status, reason: reason ?? "" });
}

export function recordAttempt(outcome: string, seconds: number): void {
  metrics().attemptSeconds.observe({ outcome }, seconds);
}

export function recordRefetch(provider: string, ok: boolean): void {
  const m = metrics();
  m.refetchTotal.inc({ provider });
  if (!ok) m.refetchErrors.inc({ provider });
}

/** Counts one attempt to push a change (or a delivery gone dead) for a destination. */
export function recordDelivery(destination: string, outcome: "delivered" | "failed" | "gone" | "dead", seconds?: number): void {
  const m = metrics();
  m.deliveriesTotal.inc({ destination, outcome });
  if (seconds !== undefined) m.deliverySeconds.observe({ destination }, seconds);
}

/** Reports this breaker's state on every scrape. */
export function trackBreaker(provider: string, breaker: BreakerState): void {
  metrics().breakers.set(provider, breaker);
}

export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;
