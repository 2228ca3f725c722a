import { DEFAULT_ACCOUNT } from "../canonical/gateway-account";
import { configuredProviders } from "../config/configured-providers";
import { formatAge } from "../time/format-time";
import type { GoneDestination, SentDelivery } from "../destinations/deliver-changes";
import { destinationHealth, type DestinationHealth } from "../destinations/destination-stats";
import { workersSummary } from "../inbox/process/worker-heartbeats";
import { backlogSummary, providerStats } from "../inbox/queries/inbox-stats";
import { silentForLongerThanUsual, webhooksReceived } from "../inbox/queries/webhooks-received";
import { countStrayEvents } from "../inbox/partitions/list-inbox-partitions";
import { runsWithFindings } from "../reconcile/reconcile-runs";
import { sendAlert, type Alert, type AlertDeps, type AlertOutcome } from "./send-alert";
import { agree, plural } from "../text/words";

const NAMED_ACCOUNTS = 5;

// Events that failed within the window, per provider: settled by a worker (processed_at) or stored
// as failed at ingest (received_at). Bounded to a week of received_at so the (status, received_at)
// index keeps it small.
// The accounts beside the default one that they belong to, at most five: the alert says which
// subaccount or seller needs a look (the account filter on the console shows the rest).
const RECENT_FAILURES = `
  SELECT provider, count(*)::int AS n,
         (array_agg(DISTINCT gateway_account ORDER BY gateway_account) FILTER (WHERE gateway_account <> '${DEFAULT_ACCOUNT}'))[1:${NAMED_ACCOUNTS}] AS accounts
    FROM webhook_inbox
   WHERE status = 'failed' AND received_at > now() - interval '7 days'
     AND COALESCE(processed_at, received_at) > now() - make_interval(mins => $1)
   GROUP BY provider ORDER BY provider`;

const STALE_PENDING = `
  SELECT provider, count(*)::int AS n, (extract(epoch FROM now() - min(received_at)) / 60)::int AS minutes
    FROM webhook_inbox
   WHERE status = 'pending'
   GROUP BY provider
  HAVING min(received_at) < now() - make_interval(mins => $1)
   ORDER BY provider`;

const PREFIX = "[webhook-inbox]";

/** ", accounts a, b" for alerts whose events belong to accounts besides the default one; "" otherwise. */
const ofAccounts = (accounts: string[] | null) => (accounts && accounts.length > 0 ? ` (accounts: ${accounts.join(", ")})` : "");

/**
 * No worker has beaten recently while events wait. Raised by the web process (a stopped worker
 * can't say it stopped); the provider field names the whole system.
 */
export async function findWorkerDownAlert(deps: AlertDeps): Promise<Alert | null> {
  const [workers, backlog] = await Promise.all([workersSummary(deps.pool), backlogSummary(deps.pool)]);
  if (backlog.pending === 0 || workers.alive > 0) return null;
  const last = workers.lastHeartbeatSecondsAgo;
  return {
    kind: "worker_down",
    provider: "all",
    text:
      `${PREFIX} no worker alive: ${plural(backlog.pending, "event")} pending` +
      `${last === null ? " and no worker ever seen" : `, the last worker heartbeat ${last}s ago`}: start \`npm run worker\`.`,
  };
}

/**
 * The alert conditions the database shows now: failed events, ignored-ratio jumps, a stale backlog,
 * a silent provider, a failing destination (raised within a check of its circuit opening, long
 * before its deliveries run out of retries).
 */
export async function findAlerts(deps: AlertDeps): Promise<Alert[]> {
  const { windowMinutes, pendingAgeMinutes } = deps.config.alerts;
  const [failures, stats, stale, received, strays, reconciled, destinations] = await Promise.all([
    deps.pool.query<{ provider: string; n: number; accounts: string[] | null }>(RECENT_FAILURES, [windowMinutes]),
    providerStats(deps.pool),
    deps.pool.query<{ provider: string; n: number; minutes: number }>(STALE_PENDING, [pendingAgeMinutes]),
    webhooksReceived(deps.pool, configuredProviders(deps.config)),
    countStrayEvents(deps.pool),
    runsWithFindings(deps.pool, windowMinutes),
    destinationHealth(deps.pool),
  ]);
  return [
    ...failures.rows.map((row) => ({
      kind: "event_failed" as const,
      provider: row.provider,
      text: `${PREFIX} ${row.provider}: ${plural(row.n, "event")} failed in the last ${windowMinutes} min${ofAccounts(row.accounts)} and ${agree(row.n, "needs", "need")} a person (console: Events, status failed).`,
    })),
    ...stats
      .filter((provider) => provider.ignoredJump)
      .map((provider) => ({
        kind: "ignored_spike" as const,
        provider: provider.provider,
        text:
          `${PREFIX} ${provider.provider}: ${Math.round(provider.windows.hour.ignoredRatio * 100)}% of the last hour's events were ignored, ` +
          `against ${Math.round(provider.baselineIgnoredRatio * 100)}% over its week: its format or ordering may have changed.`,
      })),
    ...stale.rows.map((row) => ({
      kind: "pending_stale" as const,
      provider: row.provider,
      text: `${PREFIX} ${row.provider}: the oldest of ${plural(row.n, "pending event")} has waited ${row.minutes} min (threshold ${pendingAgeMinutes} min): are the workers running?`,
    })),
    ...received.filter(silentForLongerThanUsual).map((provider) => ({
      kind: "provider_silent" as const,
      provider: provider.provider,
      text:
        `${PREFIX} ${provider.provider}: no webhook for ${Math.round(provider.secondsSinceLast! / 60)} min, far longer than usual ` +
        `(${provider.weekTotal} in the last week): is its webhook endpoint still configured, or are its signatures rejected?`,
    })),
    ...(strays > 0
      ? [
          {
            kind: "partition_strays" as const,
            provider: "all",
            text:
              `${PREFIX} ${plural(strays, "event")} ${agree(strays, "was", "were")} stored in the inbox's default partition: their month had no partition ` +
              "(a clock far off, or no worker ran to create it ahead). Creating their month's partition moves them: " +
              "`npm run cli -- partitions:create --month YYYY-MM` (workers create this month and the next two).",
          },
        ]
      : []),
    // Missed events usually mean the gateway stopped sending webhooks (a changed URL, a paused queue).
    ...reconciled.map((row) => ({
      kind: "reconcile_missed" as const,
      provider: row.provider,
      text:
        `${PREFIX} ${row.provider}: reconciliation found ${plural(row.missingIngested, "event")} the gateway never sent and ${plural(row.repaired, "payment")}${ofAccounts(row.accounts)} ` +
        `in another state than the gateway's in the last ${windowMinutes} min (recovered; console: Reconciliation). Is the webhook endpoint still configured at the gateway?`,
    })),
    ...destinations.filter((destination) => destination.circuitOpen).map(destinationFailingAlert),
  ];
}

/** Scheduled in the worker: finds alert conditions and sends each (rate limiting is sendAlert's). */
export async function checkAlerts(deps: AlertDeps): Promise<AlertOutcome[]> {
  const outcomes: AlertOutcome[] = [];
  for (const alert of await findAlerts(deps)) outcomes.push(await sendAlert(deps, alert));
  return outcomes;
}

/** Scheduled in the web process: the one alert a stopped worker can't raise about itself. */
export async function checkWorkerDownAlert(deps: AlertDeps): Promise<AlertOutcome | null> {
  const alert = await findWorkerDownAlert(deps);
  return alert ? sendAlert(deps, alert) : null;
}

/** A change that ran out of retries on its way to a destination (one alert per destination per window). */
export function deadDeliveryAlert({ claimed }: SentDelivery): Alert {
  const { change } = claimed;
  return {
    kind: "delivery_dead",
    provider: `destination:${claimed.destinationId}`,
    text: `${PREFIX} destination ${claimed.destinationName}: change ${change.id} (${change.provider} ${change.chargeId} v${change.version}) is dead after ${claimed.attempts} attempts; resend it from the Destinations page.`,
  };
}

/** A destination whose circuit is open: pushes to it stopped but for a probe now and then. */
export function destinationFailingAlert({ id, name, undelivered, oldestUndeliveredSeconds }: DestinationHealth): Alert {
  return {
    kind: "destination_failing",
    provider: `destination:${id}`,
    text:
      `${PREFIX} destination ${name} (id ${id}) is failing: its circuit opened after repeated failed pushes; ${plural(undelivered, "push", "pushes")} ${agree(undelivered, "waits", "wait")}, ` +
      `the oldest change for ${formatAge(oldestUndeliveredSeconds)}. Is the receiver up? (console: Destinations)`,
  };
}

/** A destination that answered 410 Gone and was switched off (names it, never its secret or what was sent). */
export function destinationGoneAlert({ id, name }: GoneDestination): Alert {
  return {
    kind: "destination_gone",
    provider: `destination:${id}`,
    text: `${PREFIX} destination ${name} (id ${id}) answered 410 Gone and was switched off; its pending deliveries wait until it is switched on again from the Destinations page.`,
  };
}

/** The alert for a circuit that just opened in this process (refetches from that gateway stop). */
export function circuitOpenAlert(provider: string, cooldownSeconds: number): Alert {
  return {
    kind: "circuit_open",
    provider,
    text: `${PREFIX} ${provider}: the refetch circuit opened after repeated API failures; events that need a refetch wait (next try in ${cooldownSeconds}s).`,
  };
}
