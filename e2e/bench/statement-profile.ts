import type { Queryable } from "@/lib/db/pool";
import { plural } from "@/lib/text/words";

// Where the database's time goes, statement by statement (pg_stat_statements, which the bench's own
// cluster preloads, planning tracked): calls, time (planning's share apart: the worker's set-based
// statements are planned on every call) and rows per processed event, and the WAL each writes.

/** Starts counting from zero on this cluster (every database: the bench's cluster is its own). */
export async function resetStatementProfile(db: Queryable): Promise<void> {
  await db.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  await db.query("SELECT pg_stat_statements_reset()");
}

type StatementRow = { calls: number; totalMs: number; planMs: number; meanMs: number; rows: number; walBytes: number; query: string };

/** Prints the statements of this database since the reset, the costliest first, per event where it says so. */
export async function printStatementProfile(db: Queryable, events: number, limit = 15): Promise<void> {
  const { rows } = await db.query<StatementRow>(
    `SELECT calls, total_exec_time + total_plan_time AS "totalMs", total_plan_time AS "planMs", mean_exec_time AS "meanMs", rows, wal_bytes::float8 AS "walBytes",
            left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS query
       FROM pg_stat_statements
      WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
      ORDER BY total_exec_time + total_plan_time DESC`,
  );
  const total = rows.reduce((sum, row) => sum + row.totalMs, 0);
  const wal = rows.reduce((sum, row) => sum + row.walBytes, 0);
  const cell = (text: string) => text.replace(/\|/g, "\\|");
  console.log(
    `\nstatements of the drain (pg_stat_statements, ${plural(rows.length, "distinct statement")}, ${(total / events).toFixed(3)} ms of statement time and ` +
      `${(wal / events).toFixed(0)} WAL bytes per event; the ${Math.min(limit, rows.length)} costliest):`,
  );
  console.log(
    "| statement | calls/event | total ms | of which planning | mean ms | rows/event | WAL bytes/event | share of time |\n|---|---|---|---|---|---|---|---|",
  );
  for (const row of rows.slice(0, limit)) {
    console.log(
      `| \`${cell(row.query)}\` | ${(row.calls / events).toFixed(3)} | ${row.totalMs.toFixed(0)} | ${row.planMs.toFixed(0)} | ${row.meanMs.toFixed(3)} | ` +
        `${(row.rows / events).toFixed(3)} | ${(row.walBytes / events).toFixed(0)} | ${((100 * row.totalMs) / total).toFixed(1)}% |`,
    );
  }
}
