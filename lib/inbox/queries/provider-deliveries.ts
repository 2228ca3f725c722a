import type { Queryable } from "../../db/pool";

export type ProviderDeliveries = {
  provider: string;
  /** The last delivery stored (signature valid), null when none ever was. */
  lastReceivedAt: Date | null;
  secondsSinceLast: number | null;
  /** Deliveries stored over the last week (from the hourly rollup). */
  weekTotal: number;
  /** Deliveries refused for their signature in the last hour (the failures table is capped). */
  rejectedLastHour: number;
};

/**
 * Per provider: when it last delivered, how much it delivers in a week, and how many deliveries it
 * had refused for their signature in the last hour. Each figure is one index probe per provider.
 */
export async function providerDeliveries(db: Queryable, providers: readonly string[]): Promise<ProviderDeliveries[]> {
  if (providers.length === 0) return [];
  const { rows } = await db.query<ProviderDeliveries>(
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
 * Has a provider been quiet for longer than usual? Only a provider that delivers steadily (at least
 * 50 a week) can be: quiet for ten times its average gap over the week, and at least 15 minutes.
 */
export function silentForLongerThanUsual(delivery: Pick<ProviderDeliveries, "secondsSinceLast" | "weekTotal">): boolean {
  if (delivery.secondsSinceLast === null || delivery.weekTotal < 50) return false;
  const averageGapSeconds = (7 * 86_400) / delivery.weekTotal;
  return delivery.secondsSinceLast > Math.max(15 * 60, 10 * averageGapSeconds);
}
