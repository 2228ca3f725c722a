import { DEFAULT_ACCOUNT } from "../../canonical/gateway-account";
import type { Queryable } from "../../db/pool";
import { INBOX_STATUSES, type InboxStatus } from "./event-filter";

export const STAT_WINDOWS = { hour: "1 hour", day: "1 day", week: "7 days" } as const;
export type StatWindow = keyof typeof STAT_WINDOWS;

export type WindowCounts = Record<InboxStatus, number> & { total: number; ignoredRatio: number; failedRatio: number };

export type ProviderStats = {
  provider: string;
  windows: Record<StatWindow, WindowCounts>;
  /** The provider's ignored ratio over the week before the last hour: its own normal. */
  baselineIgnoredRatio: number;
  /** The last hour's ignored ratio jumped against the baseline: the format or ordering may have changed. */
  ignoredJump: boolean;
};

const MIN_EVENTS_FOR_JUMP = 20;
const MIN_BASELINE_EVENTS = 100;

/**
 * Whether an hour's ignored ratio is abnormal for this provider: enough events in the hour and in
 * its baseline week to mean something, and at least double the baseline and 15 points above it.
 */
export function ignoredRatioJumped(
  hour: Pick<WindowCounts, "total" | "ignoredRatio">,
  baseline: { ratio: number; total: number },
): boolean {
  return (
    hour.total >= MIN_EVENTS_FOR_JUMP &&
    baseline.total >= MIN_BASELINE_EVENTS &&
    hour.ignoredRatio >= baseline.ratio + Math.max(0.15, baseline.ratio)
  );
}

function ratio(part: number, total: number): number {
  return total === 0 ? 0 : part / total;
}

// Windows are whole UTC hours of the rollup (inbox_hourly_counts, kept by triggers): "hour" is the
// current hour and the one before, "day" and "week" reach back 24 hours and 7 days to the hour.
const windowStart = (span: string) => `date_trunc('hour', now() - interval '${span}', 'UTC')`;
const columns = [
  ...Object.entries(STAT_WINDOWS).flatMap(([name, span]) =>
    INBOX_STATUSES.map(
      (status) => `COALESCE(sum(n) FILTER (WHERE hour >= ${windowStart(span)} AND status = '${status}'), 0)::int AS "${name}_${status}"`,
    ),
  ),
  `COALESCE(sum(n) FILTER (WHERE hour < ${windowStart(STAT_WINDOWS.hour)}), 0)::int AS "base_total"`,
  `COALESCE(sum(n) FILTER (WHERE hour < ${windowStart(STAT_WINDOWS.hour)} AND status = 'ignored'), 0)::int AS "base_ignored"`,
];
const PROVIDER_STATS = `
  SELECT provider, ${columns.join(",\n         ")}
    FROM inbox_hourly_counts
   WHERE hour >= ${windowStart(STAT_WINDOWS.week)}
   GROUP BY provider
  HAVING sum(n) > 0
   ORDER BY provider`;

/** Per provider: counts by status and the ignored and failed ratios over the last hour, day and week. */
export async function providerStats(db: Queryable): Promise<ProviderStats[]> {
  const { rows } = await db.query<Record<string, number> & { provider: string }>(PROVIDER_STATS);
  return rows.map((row) => {
    const windows = Object.fromEntries(
      (Object.keys(STAT_WINDOWS) as StatWindow[]).map((window) => {
        const counts = Object.fromEntries(INBOX_STATUSES.map((status) => [status, row[`${window}_${status}`] ?? 0])) as Record<
          InboxStatus,
          number
        >;
        const total = INBOX_STATUSES.reduce((sum, status) => sum + counts[status], 0);
        return [window, { ...counts, total, ignoredRatio: ratio(counts.ignored, total), failedRatio: ratio(counts.failed, total) }];
      }),
    ) as Record<StatWindow, WindowCounts>;
    const baselineIgnoredRatio = ratio(row.base_ignored ?? 0, row.base_total ?? 0);
    return {
      provider: row.provider,
      windows,
      baselineIgnoredRatio,
      ignoredJump: ignoredRatioJumped(windows.hour, { ratio: baselineIgnoredRatio, total: row.base_total ?? 0 }),
    };
  });
}

export type HourlyVolume = { hour: Date } & Record<InboxStatus, number>;

/** Events received per hour and status over the last `hours` hours (the overview chart), oldest first, gaps filled. */
export async function hourlyVolume(db: Queryable, hours = 24, provider?: string): Promise<HourlyVolume[]> {
  const { rows } = await db.query<HourlyVolume>(
    `SELECT h.hour,
            ${INBOX_STATUSES.map((status) => `COALESCE(sum(c.n) FILTER (WHERE c.status = '${status}'), 0)::int AS "${status}"`).join(", ")}
       FROM generate_series(date_trunc('hour', now(), 'UTC') - make_interval(hours => $1 - 1), date_trunc('hour', now(), 'UTC'), interval '1 hour') AS h(hour)
       LEFT JOIN (
         SELECT hour, status, n
           FROM inbox_hourly_counts
          WHERE hour >= date_trunc('hour', now(), 'UTC') - make_interval(hours => $1 - 1)
            AND ($2::text IS NULL OR provider = $2)
       ) c ON c.hour = h.hour
      GROUP BY h.hour
      ORDER BY h.hour`,
    [hours, provider ?? null],
  );
  return rows;
}

/** The accounts (besides the default one) with the most pending events, most first, at most `limit`. */
export async function pendingByAccount(db: Queryable, limit: number): Promise<{ provider: string; account: string; pending: number }[]> {
  const { rows } = await db.query<{ provider: string; account: string; pending: number }>(
    `SELECT provider, gateway_account AS account, count(*)::int AS pending FROM webhook_inbox
      WHERE status = 'pending' AND gateway_account <> '${DEFAULT_ACCOUNT}'
      GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT $1`,
    [limit],
  );
  return rows;
}

export type BacklogSummary = { pending: number; oldestPendingSeconds: number | null; failed: number };

/** What needs attention: the pending backlog and its oldest event, and how many events failed. */
export async function backlogSummary(db: Queryable): Promise<BacklogSummary> {
  const { rows } = await db.query<BacklogSummary>(
    `SELECT (SELECT count(*)::int FROM webhook_inbox WHERE status = 'pending') AS pending,
            (SELECT extract(epoch FROM now() - min(received_at))::float8 FROM webhook_inbox WHERE status = 'pending') AS "oldestPendingSeconds",
            (SELECT count(*)::int FROM webhook_inbox WHERE status = 'failed') AS failed`,
  );
  const row = rows[0]!;
  return { ...row, oldestPendingSeconds: row.oldestPendingSeconds === null ? null : Math.round(row.oldestPendingSeconds) };
}
