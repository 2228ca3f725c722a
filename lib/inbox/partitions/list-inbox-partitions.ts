import type { Queryable } from "../../db/pool";

export type InboxPartitionState = "attached" | "detached" | "archived";

export type InboxPartition = {
  name: string;
  from: Date | null;
  to: Date;
  state: InboxPartitionState;
  /** Attached: the planner's estimate (cheap at any size); archived: the exact count written. */
  rows: number;
  archiveFile: string | null;
};

/** The inbox's monthly partitions, oldest first, with what retention did to each. */
export async function listInboxPartitions(db: Queryable): Promise<InboxPartition[]> {
  const { rows } = await db.query<{
    name: string;
    range_from: Date | null;
    range_to: Date;
    state: InboxPartitionState;
    rows: string | null;
    estimate: string | null;
    archive_file: string | null;
  }>(
    `SELECT p.name, CASE WHEN isfinite(p.range_from) THEN p.range_from END AS range_from, p.range_to, p.state, p.rows, p.archive_file, greatest(c.reltuples, 0)::bigint AS estimate
       FROM inbox_partitions p LEFT JOIN pg_class c ON c.oid = to_regclass(p.name)
      ORDER BY p.range_from`,
  );
  return rows.map((row) => ({
    name: row.name,
    from: row.range_from,
    to: row.range_to,
    state: row.state,
    rows: Number(row.state === "archived" ? row.rows : row.estimate),
    archiveFile: row.archive_file,
  }));
}

/** Rows that found no monthly partition (a clock far off, a month not created ahead). */
export async function countStrayEvents(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_inbox_default");
  return rows[0]!.n;
}
