import { DEFAULT_ACCOUNT } from "../canonical/gateway-account";
import type { Queryable } from "../db/pool";

// The record of each run: what it listed and what it found, for the console, the alerts and metrics.

export type RunTrigger = "schedule" | "cli" | "console";

export type RunCounts = {
  pages: number;
  listed: number;
  missingIngested: number;
  repaired: number;
  stuckRefetched: number;
  errors: number;
};

export const emptyCounts = (): RunCounts => ({ pages: 0, listed: 0, missingIngested: 0, repaired: 0, stuckRefetched: 0, errors: 0 });

export async function startRun(
  db: Queryable,
  run: { provider: string; account: string; trigger: RunTrigger; actor: string | null; since: Date; until: Date },
): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO reconcile_runs (provider, gateway_account, trigger, actor, window_start, window_end) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [run.provider, run.account, run.trigger, run.actor, run.since, run.until],
  );
  return Number(rows[0]!.id);
}

/** The run's counts so far (after every page, so a run that dies mid-way still shows what it did). */
export async function recordProgress(
  db: Queryable,
  runId: number,
  counts: RunCounts,
  lastError: string | null,
  status = "running",
): Promise<void> {
  await db.query(
    `UPDATE reconcile_runs
        SET pages = $2, listed = $3, missing_ingested = $4, repaired = $5, stuck_refetched = $6, errors = $7,
            last_error = COALESCE($8, last_error), status = $9::text,
            finished_at = CASE WHEN $9::text = 'running' THEN NULL ELSE now() END
      WHERE id = $1`,
    [runId, counts.pages, counts.listed, counts.missingIngested, counts.repaired, counts.stuckRefetched, counts.errors, lastError, status],
  );
}

/** A run, as the console and the CLI show it. */
export type ReconcileRunRow = RunCounts & {
  id: number;
  provider: string;
  /** The gateway account listed. */
  account: string;
  trigger: string;
  actor: string | null;
  windowStart: string;
  windowEnd: string;
  status: string;
  lastError: string | null;
  startedAt: string;
  finishedAt: string | null;
};

// The columns as ReconcileRunRow names; times become ISO strings (the row crosses to the console).
const RUN_COLUMNS = `
  id::float8 AS id, provider, gateway_account AS account, trigger, actor, to_json(window_start)#>>'{}' AS "windowStart", to_json(window_end)#>>'{}' AS "windowEnd",
  status, pages, listed, missing_ingested AS "missingIngested", repaired, stuck_refetched AS "stuckRefetched", errors,
  last_error AS "lastError", to_json(started_at)#>>'{}' AS "startedAt", to_json(finished_at)#>>'{}' AS "finishedAt"`;

/** The latest runs, newest first. */
export async function listRuns(db: Queryable, limit = 50): Promise<ReconcileRunRow[]> {
  const { rows } = await db.query<ReconcileRunRow>(`SELECT ${RUN_COLUMNS} FROM reconcile_runs ORDER BY started_at DESC, id DESC LIMIT $1`, [
    limit,
  ]);
  return rows;
}

/** Per provider, what every recorded run recovered: missed events ingested and payments repaired. */
export async function recoveredByProvider(db: Queryable): Promise<{ provider: string; missingIngested: number; repaired: number }[]> {
  const { rows } = await db.query<{ provider: string; missingIngested: number; repaired: number }>(
    `SELECT provider, sum(missing_ingested)::float8 AS "missingIngested", sum(repaired)::float8 AS repaired FROM reconcile_runs GROUP BY provider ORDER BY provider`,
  );
  return rows;
}

/** Runs that finished within the window and found missed events or drifted payments (for the alert). */
export async function runsWithFindings(
  db: Queryable,
  windowMinutes: number,
): Promise<{ provider: string; runs: number; missingIngested: number; repaired: number; accounts: string[] | null }[]> {
  // Its accounts besides the default one, at most five: whose webhooks to look at.
  const { rows } = await db.query<{ provider: string; runs: number; missingIngested: number; repaired: number; accounts: string[] | null }>(
    `SELECT provider, count(*)::int AS runs, sum(missing_ingested)::int AS "missingIngested", sum(repaired)::int AS repaired,
            (array_agg(DISTINCT gateway_account ORDER BY gateway_account) FILTER (WHERE gateway_account <> '${DEFAULT_ACCOUNT}'))[1:5] AS accounts
       FROM reconcile_runs
      WHERE finished_at > now() - make_interval(mins => $1) AND (missing_ingested > 0 OR repaired > 0)
      GROUP BY provider ORDER BY provider`,
    [windowMinutes],
  );
  return rows;
}

/**
 * Deletes, oldest first and at most `limit`, the runs started more than `keepDays` ago that found
 * nothing: with thousands of accounts there is a row per account per run, and one that found
 * nothing is read by nobody after days. Kept: a run that ingested missed events or repaired
 * payments (the evidence of an incident, and what the recovered metrics sum), and each account's
 * latest scheduled run (when it is next due, whatever its interval). Returns how many went.
 */
export async function pruneReconcileRuns(db: Queryable, keepDays: number, limit: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM reconcile_runs WHERE id IN (
       SELECT r.id FROM reconcile_runs r
        WHERE r.started_at < now() - make_interval(days => $1::int)
          AND r.missing_ingested = 0 AND r.repaired = 0
          AND (r.trigger <> 'schedule' OR EXISTS (
                SELECT 1 FROM reconcile_runs newer
                 WHERE newer.trigger = 'schedule' AND newer.provider = r.provider
                   AND newer.gateway_account = r.gateway_account AND newer.started_at > r.started_at))
        ORDER BY r.started_at LIMIT $2)`,
    [keepDays, limit],
  );
  return rowCount ?? 0;
}
