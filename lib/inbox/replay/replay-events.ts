import type { PgBoss } from "pg-boss";
import type { AppConfig } from "../../config/env";
import { withTransaction, type Pool, type PoolClient } from "../../db/pool";
import { recordAudit } from "../../audit/record-audit";
import { dispatchEvents, RECEIVED_AT_TEXT, type DispatchableEvent } from "../../queue/boss";
import { countEvents, type EventCount } from "../queries/count-events";
import { eventFilterSql, type EventFilter, type InboxStatus } from "../queries/event-filter";
import { restoreArchivedRows } from "../retention/restore-archived-events";

export type ReplayDeps = { pool: Pool; boss: PgBoss; config: AppConfig };

/** Events that can be replayed; pending ones are already on their way. */
export const REPLAYABLE_STATUSES = ["failed", "ignored", "processed"] as const satisfies readonly InboxStatus[];
export const DEFAULT_REPLAY_STATUSES: InboxStatus[] = ["failed", "ignored"];

export type ReplayPreview = EventCount;
export type ReplayResult = ReplayPreview & { dryRun: boolean };

const BATCH_SIZE = 1000;

/** The filter restricted to replayable statuses (failed and ignored unless asked otherwise). */
export function replayable(filter: EventFilter): EventFilter {
  const wanted = filter.statuses?.length ? filter.statuses : DEFAULT_REPLAY_STATUSES;
  return { ...filter, statuses: wanted.filter((status) => status !== "pending") };
}

/** Above this many events a preview by a filter the rollup can't answer says "at least". */
export const REPLAY_PREVIEW_CAP = 100_000;

/** How many events a replay with this filter would touch, per provider (see countEvents). */
export async function previewReplay(pool: Pool, filter: EventFilter): Promise<ReplayPreview> {
  const scoped = replayable(filter);
  if (scoped.statuses!.length === 0) return { total: 0, byProvider: {}, atLeast: false };
  return countEvents(pool, scoped, REPLAY_PREVIEW_CAP);
}

/**
 * Puts the matching stored events back to `pending` and dispatches them, in batches (each batch one
 * transaction: its rows and their jobs commit together). Replay re-enqueues what is stored; it never
 * re-ingests. Processing stays idempotent: an effect already in the payment ledger is not applied
 * again. Writes one audit row with who, the filter and the count.
 */
export async function replayEvents(
  deps: ReplayDeps,
  filter: EventFilter,
  options: {
    actor: string;
    ip?: string | null;
    dryRun?: boolean;
    /** The bulk run this replay belongs to, recorded in each event's replay history. */
    runId?: number;
    /** Resumes an interrupted replay: events up to this id were done, `replayed` of them. */
    resume?: { afterId: number; replayed: number };
    /** Runs inside each batch's transaction, so recorded progress commits with the batch it counts. */
    onBatch?: (tx: PoolClient, progress: { replayed: number; lastId: number }) => Promise<void>;
  },
): Promise<ReplayResult> {
  const scoped = replayable(filter);
  if (options.dryRun) return { ...(await previewReplay(deps.pool, scoped)), dryRun: true };

  const byProvider: Record<string, number> = {};
  let total = options.resume?.replayed ?? 0;
  let afterId = options.resume?.afterId ?? 0;
  for (;;) {
    const batch = await withTransaction(deps.pool, async (tx) => {
      const { where, params } = eventFilterSql(scoped, 2);
      const { rows } = await tx.query<DispatchableEvent & { archiveFile: string | null; archiveSha256: string }>(
        `SELECT id, provider, resource_id AS "resourceId", event_id AS "eventId", ${RECEIVED_AT_TEXT},
                archive_file AS "archiveFile", archive_sha256 AS "archiveSha256"
           FROM webhook_inbox
          WHERE id > $1 AND ${where}
          ORDER BY id
          LIMIT $2
          FOR UPDATE SKIP LOCKED`,
        [afterId, BATCH_SIZE, ...params],
      );
      if (rows.length === 0) return rows;
      // An archived event gets its payload back before it is pending again (the row's check forbids otherwise).
      await restoreArchivedRows(
        tx,
        deps.config.retention.archiveDir,
        rows.filter((row): row is typeof row & { archiveFile: string } => row.archiveFile !== null),
      );
      // The history row keeps who and from which status; the UPDATE then resets the retry budget.
      await tx.query(
        `INSERT INTO event_replays (inbox_id, run_id, actor, previous_status)
         SELECT id, $2, $3, status FROM webhook_inbox WHERE id = ANY($1::bigint[])`,
        [rows.map((row) => row.id), options.runId ?? null, options.actor],
      );
      await tx.query(
        `UPDATE webhook_inbox
            SET status = 'pending', attempts = 0, last_error = NULL, ignored_reason = NULL,
                next_attempt_at = NULL, processed_at = NULL
          WHERE id = ANY($1::bigint[])`,
        [rows.map((row) => row.id)],
      );
      await dispatchEvents(deps.boss, tx, rows, { expireInSeconds: deps.config.worker.jobExpireSeconds });
      await options.onBatch?.(tx, { replayed: total + rows.length, lastId: rows[rows.length - 1]!.id });
      return rows;
    });
    for (const row of batch) byProvider[row.provider] = (byProvider[row.provider] ?? 0) + 1;
    total += batch.length;
    if (batch.length < BATCH_SIZE) break;
    afterId = batch[batch.length - 1]!.id;
  }
  await recordAudit(deps.pool, {
    actor: options.actor,
    action: "replay",
    ip: options.ip,
    details: { filter: scoped, count: total, byProvider, ...(options.runId ? { runId: options.runId } : {}) },
  });
  return { total, byProvider, atLeast: false, dryRun: false };
}
