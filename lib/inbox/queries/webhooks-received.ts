import type { Queryable } from "../../db/pool";

export type WebhooksReceived = {
  provider: string;
  /** The last webhook stored (signature valid), null when none ever was. */
  lastReceivedAt: Date | null;
  secondsSinceLast: number | null;
  /** Webhooks stored over the last week (from the hourly rollup). */
  weekTotal: number;
  /** Webhooks refused for their signature in the last hour (the failures table is capped). */
  rejectedLastHour: number;
};

/**
 * Per provider: when its last webhook arrived, how many it sends in a week, and how many of its
 * webhooks were refused for their signature in the last hour. Each figure is one index probe per provider.
 */
export async function webhooksReceived(db: Queryable, providers: readonly string[]): Promise<WebhooksReceived[]> {
  if (providers.length === 0) return [];
  const { rows } = await db.query<WebhooksReceived>(
    `SELECT p.provider,
            last."receivedAt" AS "lastReceivedAt",
            extract(epoch FROM now() - last."receivedAt")::int AS "secondsSinceLast",
            (SELECT COALESCE(sum(n), 0)::int FROM inbox_hourly_counts c WHERE c.provider = p.provider AND c.hour >= now() - interval '7 days') AS "weekTotal",
            (SELECT count(*)::int FROM signature_failures f WHERE f.provider = p.provider AND f.received_at > now() - interval '1 hour') AS "rejectedLastHour"
       FROM unnest($1::text[]) AS p(provider)
       LEFT JOIN LATERAL (SELECT max(received_at) AS "receivedAt" FROM webhook_inbox w WHERE w.provider = p.provider) last ON true
      ORDER BY p.provider`,
    [providers],
  );
  return rows;
}

/**
 * Has a provider been quiet for longer than usual? Only a provider that sends steadily (at least
 * 50 webhooks a week) can be: quiet for ten times its average gap over the week, and at least 15 minutes.
 */
export function silentForLongerThanUsual(received: Pick<WebhooksReceived, "secondsSinceLast" | "weekTotal">): boolean {
  if (received.secondsSinceLast === null || received.weekTotal < 50) return false;
  const averageGapSeconds = (7 * 86_400) / received.weekTotal;
  return received.secondsSinceLast > Math.max(15 * 60, 10 * averageGapSeconds);
}
