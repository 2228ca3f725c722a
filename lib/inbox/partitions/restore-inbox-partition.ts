import { recordAudit } from "../../audit/record-audit";
import { withTransaction, type Pool } from "../../db/pool";
import { ArchiveError, readArchiveMembers } from "../retention/archive-files";
import { DEFAULT_ACCOUNT } from "../../canonical/gateway-account";
import { sha256OfFile, quotedPartition } from "./partition-names";

export type PartitionRestoreDeps = { pool: Pool; archiveDir: string };

// Columns the inbox gained after archives were first written, with the value their rows meant: a
// key missing from an archived row would populate as NULL, which these columns refuse.
const ADDED_SINCE_FIRST_ARCHIVES = { gateway_account: DEFAULT_ACCOUNT };

type ArchivedPartition = { rows: string; archive_file: string | null; archive_sha256: string | null; bounds: string };

/**
 * Brings an archived partition back: its rows from the archive file (each segment checked against
 * the manifest, the whole file against the checksum recorded when it was archived) into a new
 * table, attached to the inbox for its month. Attaching takes a SHARE UPDATE EXCLUSIVE lock on the
 * inbox, so ingest goes on meanwhile. The events' dedupe keys never left the ledger.
 */
export async function restoreInboxPartition(
  deps: PartitionRestoreDeps,
  name: string,
  options: { actor: string; ip?: string | null },
): Promise<{ restored: number }> {
  const restored = await withTransaction(deps.pool, async (tx) => {
    const { rows } = await tx.query<ArchivedPartition>(
      `SELECT rows, archive_file, archive_sha256,
              format('FOR VALUES FROM (%s) TO (%L)', CASE WHEN isfinite(range_from) THEN quote_literal(range_from) ELSE 'MINVALUE' END, range_to) AS bounds
         FROM inbox_partitions WHERE name = $1 AND state = 'archived' FOR UPDATE`,
      [name],
    );
    const partition = rows[0];
    if (!partition) throw new ArchiveError(`${name} is not an archived partition`);
    const table = quotedPartition(name);
    await tx.query(`CREATE TABLE ${table} (LIKE webhook_inbox INCLUDING DEFAULTS INCLUDING CONSTRAINTS)`);
    let count = 0;
    if (partition.archive_file) {
      if ((await sha256OfFile(deps.archiveDir, partition.archive_file)) !== partition.archive_sha256) {
        throw new ArchiveError(`${partition.archive_file} does not match the checksum recorded when ${name} was archived`);
      }
      for await (const members of readArchiveMembers(deps.archiveDir, partition.archive_file)) {
        await tx.query(`INSERT INTO ${table} SELECT * FROM jsonb_populate_recordset(NULL::webhook_inbox, $1::jsonb)`, [
          JSON.stringify(members.map((member) => ({ ...ADDED_SINCE_FIRST_ARCHIVES, ...(member as object) }))),
        ]);
        count += members.length;
      }
    }
    if (count !== Number(partition.rows)) throw new ArchiveError(`${name}: ${count} rows in the archive, ${partition.rows} recorded`);
    await tx.query(`ALTER TABLE webhook_inbox ATTACH PARTITION ${table} ${partition.bounds}`);
    await tx.query("UPDATE inbox_partitions SET state = 'attached', archived_at = NULL WHERE name = $1", [name]);
    return count;
  });
  await recordAudit(deps.pool, { actor: options.actor, action: "restore", ip: options.ip, details: { partition: name, count: restored } });
  return { restored };
}
