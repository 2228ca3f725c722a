import type { Queryable } from "../db/pool";
import { backlogSummary, hourlyVolume, providerStats, STAT_WINDOWS, type BacklogSummary, type HourlyVolume, type StatWindow } from "../inbox/queries/inbox-stats";

/** One provider over one window, as the overview's table shows it. */
export type ProviderWindowRow = {
  provider: string;
  window: StatWindow;
  total: number;
  processed: number;
  ignored: number;
  failed: number;
  pending: number;
  ignoredRatio: number;
  failedRatio: number;
  /** Set on the hour row: the ignored ratio jumped, and the rest of the week's ratio to compare. */
  ignoredJump: boolean;
  baselineIgnoredRatio: number | null;
};

export type OverviewView = { rows: ProviderWindowRow[]; jumped: string[]; volume: HourlyVolume[]; backlog: BacklogSummary };

/** What the overview shows: per provider and window counts and ratios, the day's volume, the backlog. */
export async function getOverviewView(db: Queryable): Promise<OverviewView> {
  const [stats, volume, backlog] = await Promise.all([providerStats(db), hourlyVolume(db, 24), backlogSummary(db)]);
  const rows = stats.flatMap((row) =>
    (Object.keys(STAT_WINDOWS) as StatWindow[]).map((window) => {
      const { total, processed, ignored, failed, pending, ignoredRatio, failedRatio } = row.windows[window];
      const hour = window === "hour";
      return {
        ...{ provider: row.provider, window, total, processed, ignored, failed, pending, ignoredRatio, failedRatio },
        ignoredJump: hour && row.ignoredJump,
        baselineIgnoredRatio: hour && row.windows.week.total > total ? row.baselineIgnoredRatio : null,
      };
    }),
  );
  return { rows, jumped: stats.filter((row) => row.ignoredJump).map((row) => row.provider), volume, backlog };
}
