import { recordAudit } from "../../audit/record-audit";
import type { AppConfig } from "../../config/env";
import { withTransaction, type Pool, type Queryable } from "../../db/pool";
import { ArchiveError, readArchivedEvents, sha256Hex } from "./archive-files";

export type RestoreDeps = { pool: Pool; config: AppConfig };

export type RestoreSelector = { ids: number[] } | { provider: string; from: Date; to: Date };

export type RestoreResult = { restored: number };

type ArchivedRow = { id: number; archiveFile: string; archiveSha256: string };

const BATCH_SIZE = 500;

const RESTORE_ROW = `
  UPDATE webhook_inbox
     SET raw_body = $2, payload = $3::jsonb, headers = $4::jsonb,
         archived_at = NULL, archive_file = NULL, archive_sha256 = NULL
   WHERE id = $1 AND archived_at IS NOT NULL`;

/**
 * Puts archived payloads back into their rows, on `db` (a transaction holding the rows' locks).
 * Each raw body must match the checksum recorded in the row when it was purged, and each archive
 * segment its manifest checksum: a mismatch restores nothing and throws.
 */
export async function restoreArchivedRows(db: Queryable, archiveDir: string, rows: readonly ArchivedRow[]): Promise<number> {
  const byFile = new Map<string, ArchivedRow[]>();
  for (const row of rows) byFile.set(row.archiveFile, [...(byFile.get(row.archiveFile) ?? []), row]);
  let restored = 0;
  for (const [file, fileRows] of byFile) {
    const events = await readArchivedEvents(archiveDir, file, new Set(fileRows.map((row) => row.id)));
    for (const row of fileRows) {
      const event = events.get(row.id);
      if (!event) throw new ArchiveError(`event ${row.id} is not in ${file}`);
      const rawBody = Buffer.from(event.rawBodyBase64, "base64");
      if (sha256Hex(rawBody) !== row.archiveSha256) {
        throw new ArchiveError(`event ${row.id}: the archived bytes in ${file} do not match the checksum recorded when it was archived`);
      }
      await db.query(RESTORE_ROW, [
        row.id,
        rawBody,
        event.payload === null ? null : JSON.stringify(event.payload),
        JSON.stringify(event.headers),
      ]);
      restored += 1;
    }
  }
  return restored;
}

function selectorSql(selector: RestoreSelector): { where: string; params: unknown[] } {
  if ("ids" in selector) return { where: "id = ANY($2::bigint[])", params: [selector.ids] };
  return { where: "provider = $2 AND received_at >= $3 AND received_at < $4", params: [selector.provider, selector.from, selector.to] };
}

/**
 * Restores archived events by id or by provider and received range [from, to), in batches of
 * short transactions, and records who did it in the audit log, a restore that failed part-way
 * included (with what it had restored and why it stopped).
 */
export async function restoreArchivedEvents(
  deps: RestoreDeps,
  selector: RestoreSelector,
  options: { actor: string; ip?: string | null },
): Promise<RestoreResult> {
  const { where, params } = selectorSql(selector);
  const scope = "ids" in selector ? { ids: selector.ids.slice(0, 100) } : { ...selector };
  let restored = 0;
  try {
    await restoreBatches(deps, where, params, (count) => (restored += count));
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, 300);
    await recordAudit(deps.pool, {
      actor: options.actor,
      action: "restore_failed",
      ip: options.ip,
      details: { ...scope, count: restored, error: reason },
    });
    throw error;
  }
  await recordAudit(deps.pool, { actor: options.actor, action: "restore", ip: options.ip, details: { ...scope, count: restored } });
  return { restored };
}

/** Restores the selected rows batch by batch, reporting each batch's count as it commits. */
async function restoreBatches(deps: RestoreDeps, where: string, params: unknown[], onRestored: (count: number) => void): Promise<void> {
  let afterId = 0;
  for (;;) {
    const { batch, count } = await withTransaction(deps.pool, async (tx) => {
      const { rows } = await tx.query<ArchivedRow>(
        `SELECT id, archive_file AS "archiveFile", archive_sha256 AS "archiveSha256" FROM webhook_inbox
          WHERE archived_at IS NOT NULL AND id > $1 AND ${where}
          ORDER BY id LIMIT ${BATCH_SIZE} FOR UPDATE`,
        [afterId, ...params],
      );
      return { batch: rows, count: await restoreArchivedRows(tx, deps.config.retention.archiveDir, rows) };
    });
    onRestored(count);
    if (batch.length < BATCH_SIZE) return;
    afterId = batch[batch.length - 1]!.id;
  }
}
