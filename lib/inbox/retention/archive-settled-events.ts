import type { AppConfig } from "../../config/env";
import type { Pool } from "../../db/pool";
import { appendArchiveSegment, archiveFileFor, sha256Hex, type ArchivedEvent } from "./archive-files";

export type RetentionDeps = { pool: Pool; config: AppConfig };

export type RetentionPreview = { cutoff: Date; events: number; bytes: number; byProvider: Record<string, number> };
export type RetentionResult = RetentionPreview & { dryRun: boolean; skipped: boolean; batches: number };

// Any constant: one retention run at a time per database (the scheduled job and the CLI share it),
// so two runs never append to the same archive file at once (an erasure rewriting archives takes it too).
export const RETENTION_LOCK_KEY = 72_310_557;

const SETTLED_BEFORE_CUTOFF = `archived_at IS NULL AND status IN ('processed', 'ignored') AND received_at < $1`;

// Oldest first through the partial index; no lock is taken while the batch is read and written to
// disk. The purge below re-checks every row.
const NEXT_BATCH = `
  SELECT id, provider, event_id, received_at, received_at::text AS received_key, raw_body, payload, headers,
         processed_at::text AS processed_key
    FROM webhook_inbox
   WHERE ${SETTLED_BEFORE_CUTOFF} AND (received_at, id) > ($2::timestamptz, $3::bigint)
   ORDER BY received_at, id
   LIMIT $4`;

// One short transaction per batch. SKIP LOCKED leaves alone rows a replay holds right now, and a
// row replayed (or re-processed) since it was read is left as it is: its processed_at moved.
const PURGE_BATCH = `
  WITH archived AS (
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::timestamptz[]) AS a(id, file, sha256, processed_at)
  ), locked AS (
    SELECT w.id FROM webhook_inbox w JOIN archived a ON a.id = w.id
     WHERE w.archived_at IS NULL AND w.status IN ('processed', 'ignored')
       AND w.processed_at IS NOT DISTINCT FROM a.processed_at
     FOR UPDATE OF w SKIP LOCKED
  )
  UPDATE webhook_inbox w
     SET raw_body = NULL, payload = NULL, headers = '{}', archived_at = now(),
         archive_file = a.file, archive_sha256 = a.sha256
    FROM archived a
   WHERE w.id = a.id AND w.id IN (SELECT id FROM locked)
  RETURNING w.id`;

type CandidateRow = {
  id: number;
  provider: string;
  event_id: string;
  received_at: Date;
  /** received_at at full (microsecond) precision, for the keyset; a JS Date keeps milliseconds. */
  received_key: string;
  raw_body: Buffer;
  payload: unknown;
  headers: Record<string, string>;
  /** processed_at at full precision: the purge compares it to detect a row changed since it was read. */
  processed_key: string | null;
};

export function retentionCutoff(config: AppConfig, now = new Date()): Date {
  return new Date(now.getTime() - config.retention.days * 24 * 3600 * 1000);
}

/** What a retention run would archive now: settled events received before the cutoff. */
export async function previewRetention(deps: RetentionDeps, now = new Date()): Promise<RetentionPreview> {
  const cutoff = retentionCutoff(deps.config, now);
  const { rows } = await deps.pool.query<{ provider: string; n: number; bytes: number }>(
    `SELECT provider, count(*)::int AS n, COALESCE(sum(octet_length(raw_body)), 0)::bigint AS bytes
       FROM webhook_inbox WHERE ${SETTLED_BEFORE_CUTOFF} GROUP BY provider ORDER BY provider`,
    [cutoff],
  );
  return {
    cutoff,
    events: rows.reduce((sum, row) => sum + row.n, 0),
    bytes: rows.reduce((sum, row) => sum + row.bytes, 0),
    byProvider: Object.fromEntries(rows.map((row) => [row.provider, row.n])),
  };
}

function toArchived(row: CandidateRow): ArchivedEvent {
  return {
    id: row.id,
    provider: row.provider,
    eventId: row.event_id,
    receivedAt: row.received_at.toISOString(),
    rawBodySha256: sha256Hex(row.raw_body),
    rawBodyBase64: row.raw_body.toString("base64"),
    payload: row.payload,
    headers: row.headers,
  };
}

/** Writes one batch to its archive files (one segment per provider and day), then purges it. */
async function archiveBatch(deps: RetentionDeps, rows: CandidateRow[]): Promise<CandidateRow[]> {
  const byFile = new Map<string, CandidateRow[]>();
  for (const row of rows) {
    const file = archiveFileFor(row.provider, row.received_at);
    byFile.set(file, [...(byFile.get(file) ?? []), row]);
  }
  const purge = { ids: [] as number[], files: [] as string[], sums: [] as string[], processedAt: [] as (string | null)[] };
  for (const [file, fileRows] of byFile) {
    const events = fileRows.map(toArchived);
    await appendArchiveSegment(deps.config.retention.archiveDir, file, events);
    for (const [index, event] of events.entries()) {
      purge.ids.push(event.id);
      purge.files.push(file);
      purge.sums.push(event.rawBodySha256);
      purge.processedAt.push(fileRows[index]!.processed_key);
    }
  }
  const { rows: purged } = await deps.pool.query<{ id: number }>(PURGE_BATCH, [purge.ids, purge.files, purge.sums, purge.processedAt]);
  const purgedIds = new Set(purged.map((row) => row.id));
  return rows.filter((row) => purgedIds.has(row.id));
}

/**
 * Archives the raw body, payload and headers of settled events older than RETENTION_DAYS to
 * compressed NDJSON under ARCHIVE_DIR, then purges them from the rows in small batches. Pending
 * and failed events are never touched; the rows, their dedupe keys and the payment ledger stay.
 * Returns what was purged; `skipped` when another run holds the lock.
 */
export async function runRetention(
  deps: RetentionDeps,
  options: { dryRun?: boolean; now?: Date; onBatch?: (purged: number) => void } = {},
): Promise<RetentionResult> {
  if (options.dryRun) return { ...(await previewRetention(deps, options.now)), dryRun: true, skipped: false, batches: 0 };
  const cutoff = retentionCutoff(deps.config, options.now);
  const result: RetentionResult = { cutoff, events: 0, bytes: 0, byProvider: {}, dryRun: false, skipped: false, batches: 0 };
  const lockClient = await deps.pool.connect();
  try {
    const { rows: lock } = await lockClient.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [RETENTION_LOCK_KEY]);
    if (!lock[0]!.locked) return { ...result, skipped: true };
    try {
      let after = { receivedAt: "-infinity", id: 0 };
      for (;;) {
        const { rows } = await deps.pool.query<CandidateRow>(NEXT_BATCH, [
          cutoff,
          after.receivedAt,
          after.id,
          deps.config.retention.batchSize,
        ]);
        if (rows.length === 0) break;
        const purged = await archiveBatch(deps, rows);
        result.batches += 1;
        result.events += purged.length;
        for (const row of purged) {
          result.bytes += row.raw_body.length;
          result.byProvider[row.provider] = (result.byProvider[row.provider] ?? 0) + 1;
        }
        options.onBatch?.(result.events);
        const last = rows[rows.length - 1]!;
        after = { receivedAt: last.received_key, id: last.id };
      }
    } finally {
      await lockClient.query("SELECT pg_advisory_unlock($1)", [RETENTION_LOCK_KEY]);
    }
  } finally {
    lockClient.release();
  }
  return result;
}
