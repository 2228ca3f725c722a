import type { AppConfig } from "../config/env";
import type { Pool } from "../db/pool";
import { logger } from "../observability/logger";
import { recordDelivery } from "../observability/metrics";
import {
  claimDeliveries,
  sendDelivery,
  settleDeliveries,
  type ClaimedDelivery,
  type GoneDestination,
  type SentDelivery,
} from "./deliver-changes";
import { fanOutChanges } from "./fan-out-changes";

export type DeliveryWorker = { stop: () => Promise<void> };

/** Told of what needs a person (the worker alerts through lib/alerts): each delivery that ran out of retries, each destination switched off by a 410. */
export type DeliveryNotices = { dead: (dead: SentDelivery) => void; gone: (destination: GoneDestination) => void };

const IDLE_POLL_MS = 200;
// Answers that come within this of each other are recorded in one transaction (and their
// payments' next versions claimed in one statement): a round trip per answer would cap throughput.
const SETTLE_BATCH_MS = 10;
const FAN_OUT_EVERY_MS = 100;

/**
 * Pushes payment changes to destinations until stopped: numbers and fans out newly committed
 * changes, claims due deliveries up to DESTINATION_CONCURRENCY in flight, and records each answer as
 * soon as it comes (batched with whatever else finished meanwhile), which is what lets the payment's
 * next version go. A slow destination only holds the slots of its own requests. Several workers
 * share the work through the deliveries' leases (SKIP LOCKED).
 */
export function startDeliveryWorker(pool: Pool, config: AppConfig, notify: DeliveryNotices): DeliveryWorker {
  const settings = config.destinations;
  const log = logger("destinations");
  let stopping = false;
  let inFlight = 0;
  let finished: SentDelivery[] = [];
  let wake: (() => void) | null = null;
  const nudge = () => {
    wake?.();
    wake = null;
  };
  let lastFanOut = 0;
  let settleTimer: NodeJS.Timeout | null = null;
  const settleSoon = () => {
    settleTimer ??= setTimeout(() => {
      settleTimer = null;
      nudge();
    }, SETTLE_BATCH_MS);
  };

  async function settle(): Promise<void> {
    if (finished.length === 0) return;
    const batch = finished;
    finished = [];
    for (const { claimed, outcome, result } of batch) recordDelivery(claimed.destinationName, outcome, result.latencyMs / 1000);
    const report = await settleDeliveries(pool, settings, batch);
    for (const dead of report.dead) {
      recordDelivery(dead.claimed.destinationName, "dead");
      notify.dead(dead);
    }
    for (const id of report.breakersOpened)
      log.warn({ destinationId: id, cooldownSeconds: settings.breakerCooldownSeconds }, "destination circuit opened");
    for (const gone of report.gone) {
      log.warn({ destinationId: gone.id }, "destination answered 410 Gone: disabled");
      notify.gone(gone);
    }
  }

  /** Sends one claimed delivery; its answer (or why there was none) waits in `finished` to be recorded. */
  async function send(delivery: ClaimedDelivery): Promise<void> {
    // Awaited before `finished` is read: settle() swaps the array meanwhile, and `finished.push(await
    // ...)` would push into the old one, already recorded, losing this answer until its lease ran out.
    let sent: SentDelivery;
    try {
      sent = await sendDelivery(delivery, settings);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      sent = { claimed: delivery, outcome: "failed", result: { statusCode: null, latencyMs: 0, excerpt: null, error: reason } };
    }
    finished.push(sent);
    inFlight--;
    settleSoon();
  }

  async function turn(): Promise<boolean> {
    await settle();
    const now = Date.now();
    if (now - lastFanOut >= FAN_OUT_EVERY_MS) {
      lastFanOut = now;
      await fanOutChanges(pool);
    }
    const claimed = await claimDeliveries(pool, settings, settings.concurrency - inFlight);
    for (const delivery of claimed) {
      inFlight++;
      send(delivery).catch((error: unknown) => log.error({ error: String(error) }, "delivery bookkeeping failed"));
    }
    return claimed.length > 0;
  }

  const loop = (async () => {
    while (!stopping) {
      let busy = false;
      try {
        busy = await turn();
      } catch (error) {
        log.error({ error: error instanceof Error ? error.message : String(error) }, "delivery round failed; retrying");
      }
      if (stopping) break;
      // Wait for an answer, or poll for new work; with free slots and work found, claim again at once.
      if (busy && inFlight < settings.concurrency) continue;
      await new Promise<void>((resume) => {
        wake = resume;
        setTimeout(resume, IDLE_POLL_MS);
      });
    }
  })();

  return {
    stop: async () => {
      stopping = true;
      nudge();
      await loop;
      // Answers already in hand are recorded; anything still in flight is left to its lease.
      while (inFlight > 0)
        await new Promise<void>((resume) => {
          wake = resume;
          setTimeout(resume, IDLE_POLL_MS);
        });
      await settle().catch(() => undefined);
    },
  };
}
