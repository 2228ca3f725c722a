import type { AppConfig } from "../config/env";
import { configuredProviders } from "../config/configured-providers";
import type { Queryable } from "../db/pool";
import { destinationHealth } from "../destinations/destination-stats";
import { listWorkerBeats, type WorkerBeat } from "../inbox/process/worker-heartbeats";
import {
  backlogSummary,
  hourlyVolume,
  providerStats,
  STAT_WINDOWS,
  type BacklogSummary,
  type HourlyVolume,
  type StatWindow,
} from "../inbox/queries/inbox-stats";
import { silentForLongerThanUsual, webhooksReceived, type WebhooksReceived } from "../inbox/queries/webhooks-received";

/** One provider's events by window, as the overview's table shows it: one row per provider. */
export type ProviderRow = {
  provider: string;
  /** Events stored over each window (the last hour, day and 7 days). */
  events: Record<StatWindow, number>;
  /** The last 7 days' events by status, and their ratios. */
  week: { processed: number; ignored: number; failed: number; pending: number; ignoredRatio: number; failedRatio: number };
  /** The last hour's ignored ratio; whether it jumped, against the rest of the week's (null when the week has nothing else). */
  hourIgnoredRatio: number;
  ignoredJump: boolean;
  baselineIgnoredRatio: number | null;
};

export type OverviewView = {
  rows: ProviderRow[];
  jumped: string[];
  volume: HourlyVolume[];
  backlog: BacklogSummary;
  workers: WorkerBeat[];
  /** Events wait and no worker is alive (none beat recently; stopping or stopped ones don't count). */
  noWorkerAlive: boolean;
  /** The oldest pending event has waited longer than a worker takes to pick one up. */
  oldPending: boolean;
  webhooks: (WebhooksReceived & { silent: boolean })[];
  /** Pushes to destinations: how many wait, the oldest one's age, and the destinations failing. */
  deliveries: {
    undelivered: number;
    oldestUndeliveredSeconds: number | null;
    failing: { id: number; name: string; reason: "circuit_open" | "gone" }[];
  };
};

// Longer than a live worker ever leaves an event waiting (retries are scheduled, not pending-due).
const OLD_PENDING_SECONDS = 120;

/** What the overview shows: per provider its counts by window and ratios, the day's volume, the backlog. */
export async function getOverviewView(db: Queryable, config: AppConfig): Promise<OverviewView> {
  const [stats, volume, backlog, workers, webhooks, destinations] = await Promise.all([
    providerStats(db),
    hourlyVolume(db, 24),
    backlogSummary(db),
    listWorkerBeats(db),
    webhooksReceived(db, configuredProviders(config)),
    destinationHealth(db),
  ]);
  const oldest = Math.max(0, ...destinations.map((destination) => destination.oldestUndeliveredSeconds));
  const rows = stats.map(({ provider, windows, ignoredJump, baselineIgnoredRatio }): ProviderRow => {
    const { processed, ignored, failed, pending, ignoredRatio, failedRatio } = windows.week;
    return {
      provider,
      events: Object.fromEntries((Object.keys(STAT_WINDOWS) as StatWindow[]).map((window) => [window, windows[window].total])) as Record<
        StatWindow,
        number
      >,
      week: { processed, ignored, failed, pending, ignoredRatio, failedRatio },
      hourIgnoredRatio: windows.hour.ignoredRatio,
      ignoredJump,
      baselineIgnoredRatio: windows.week.total > windows.hour.total ? baselineIgnoredRatio : null,
    };
  });
  return {
    rows,
    jumped: stats.filter((row) => row.ignoredJump).map((row) => row.provider),
    volume,
    backlog,
    workers,
    noWorkerAlive: backlog.pending > 0 && !workers.some((worker) => worker.state === "alive"),
    oldPending: (backlog.oldestPendingSeconds ?? 0) > OLD_PENDING_SECONDS,
    webhooks: webhooks.map((received) => ({ ...received, silent: silentForLongerThanUsual(received) })),
    deliveries: {
      undelivered: destinations.reduce((sum, destination) => sum + destination.undelivered, 0),
      oldestUndeliveredSeconds: oldest > 0 ? Math.round(oldest) : null,
      failing: destinations.flatMap(({ id, name, circuitOpen, gone }): OverviewView["deliveries"]["failing"] =>
        circuitOpen ? [{ id, name, reason: "circuit_open" }] : gone ? [{ id, name, reason: "gone" }] : [],
      ),
    },
  };
}
