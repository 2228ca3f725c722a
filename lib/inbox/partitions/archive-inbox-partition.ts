import { recordAudit, type Actor } from "../../audit/record-audit";
import type { Pool, PoolClient } from "../../db/pool";
import { withTransaction } from "../../db/pool";
import { appendArchiveSegment, removeArchiveFile } from "../retention/archive-files";
import { partitionArchiveFile, quotedPartition as quoted, sha256OfFile } from "./partition-names";

export type PartitionArchiveDeps = { pool: Pool; archiveDir: string };

export type PartitionArchiveOutcome =
  | { name: string; outcome: "archived"; rows: number; file: string }
  /** Pending or failed events still live in it: it stays attached (retention never drops unsettled work). */
  | { name: string; outcome: "unsettled" }
  /** The lock on the inbox was not granted in time, or another run holds the partition: next run. */
  | { name: string; outcome: "busy" };

const BATCH_ROWS = 1000;
// Detaching takes an ACCESS EXCLUSIVE lock on the inbox for an instant (no data moves). Waiting
// behind a long console query would queue every insert behind us, so give up quickly and retry.
const DETACH_LOCK_TIMEOUT = "2s";
const DETACH_TRIES = 5;
const LOCK_NOT_AVAILABLE = "55P03";

/** Detaches `name` unless it holds pending or failed events; false when it does. */
async function detach(pool: Pool, name: string): Promise<"detached" | "unsettled" | "busy"> {
  for (let attempt = 1; attempt <= DETACH_TRIES; attempt += 1) {
    try {
      return await withTransaction(pool, async (tx) => {
        await tx.query(`SET LOCAL lock_timeout = '${DETACH_LOCK_TIMEOUT}'`);
        const { rows: claimed } = await tx.query(
          "SELECT 1 FROM inbox_partitions WHERE name = $1 AND state = 'attached' FOR UPDATE SKIP LOCKED",
          [name],
        );
        if (claimed.length === 0) return "busy";
        await tx.query(`ALTER TABLE webhook_inbox DETACH PARTITION ${quoted(name)}`);
        // Checked after the detach, under its lock: a replay can no longer turn a row pending behind our back.
        const { rows } = await tx.query(`SELECT 1 FROM ${quoted(name)} WHERE status IN ('pending', 'failed') LIMIT 1`);
        if (rows.length > 0) throw new UnsettledPartition();
        await tx.query("UPDATE inbox_partitions SET state = 'detached' WHERE name = $1", [name]);
        return "detached";
      });
    } catch (error) {
      if (error instanceof UnsettledPartition) return "unsettled";
      if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw error;
    }
  }
  return "busy";
}

class UnsettledPartition extends Error {}

/** Writes every row of the detached table to its archive file, then drops the table; one transaction. */
async function archiveDetached(deps: PartitionArchiveDeps, name: string, by: Actor): Promise<PartitionArchiveOutcome> {
  return withTransaction(deps.pool, async (tx: PoolClient) => {
    // The catalog row is this run's claim; a crash rolls it back and the next run starts the file over.
    const { rows: claimed } = await tx.query(
      "SELECT 1 FROM inbox_partitions WHERE name = $1 AND state = 'detached' FOR UPDATE SKIP LOCKED",
      [name],
    );
    if (claimed.length === 0) return { name, outcome: "busy" };
    const file = partitionArchiveFile(name);
    await removeArchiveFile(deps.archiveDir, file);
    let rows = 0;
    let afterId = 0;
    for (;;) {
      const { rows: batch } = await tx.query<{ id: number; row: { id: number } }>(
        `SELECT id, to_jsonb(p) AS row FROM ${quoted(name)} p WHERE id > $1 ORDER BY id LIMIT ${BATCH_ROWS}`,
        [afterId],
      );
      if (batch.length === 0) break;
      await appendArchiveSegment(
        deps.archiveDir,
        file,
        batch.map((entry) => entry.row),
      );
      rows += batch.length;
      afterId = batch[batch.length - 1]!.id;
    }
    const sha256 = rows === 0 ? null : await sha256OfFile(deps.archiveDir, file);
    await tx.query(`DROP TABLE ${quoted(name)}`);
    await tx.query(
      `UPDATE inbox_partitions SET state = 'archived', rows = $2, archive_file = $3, archive_sha256 = $4, archived_at = now() WHERE name = $1`,
      [name, rows, rows === 0 ? null : file, sha256],
    );
    // Committed with the drop: who took a month of events out of the database, and where they went.
    await recordAudit(tx, {
      actor: by.name,
      action: "archive",
      ip: by.ip,
      details: { partition: name, rows, file: rows === 0 ? null : file },
    });
    return { name, outcome: "archived", rows, file };
  });
}

/**
 * Archives one partition: detaches it from the inbox (an instant's exclusive lock; ingest goes on
 * into the current month), writes all its rows (payloads included) to ARCHIVE_DIR, and drops it.
 * The dedupe ledger keeps every key, so resends of its events stay duplicates; processing
 * attempts, replays and payment transitions keep their inbox ids, which a restore makes whole again.
 */
export async function archiveInboxPartition(deps: PartitionArchiveDeps, name: string, by: Actor): Promise<PartitionArchiveOutcome> {
  const { rows } = await deps.pool.query<{ state: string }>("SELECT state FROM inbox_partitions WHERE name = $1", [name]);
  const state = rows[0]?.state;
  if (state === undefined || state === "archived") throw new Error(`no partition ${name} to archive`);
  if (state === "attached") {
    const detached = await detach(deps.pool, name);
    if (detached !== "detached") return { name, outcome: detached };
  }
  return archiveDetached(deps, name, by);
}

/**
 * Archives every partition whose whole month ended before `before` (RETENTION_PARTITION_MONTHS
 * back), oldest first; a partition left detached by an interrupted run is finished first.
 */
export async function archiveOldPartitions(deps: PartitionArchiveDeps, before: Date, by: Actor): Promise<PartitionArchiveOutcome[]> {
  const { rows } = await deps.pool.query<{ name: string }>(
    `SELECT name FROM inbox_partitions
      WHERE (state = 'attached' AND range_to <= $1) OR state = 'detached'
      ORDER BY range_from`,
    [before],
  );
  const outcomes: PartitionArchiveOutcome[] = [];
  for (const row of rows) outcomes.push(await archiveInboxPartition(deps, row.name, by));
  return outcomes;
}
