import type { Queryable } from "../../db/pool";
import { readArchiveMembers } from "../retention/archive-files";

/** An inbox row as an archived partition's file holds it: the row's to_jsonb (a bytea as "\x<hex>"). */
export type ArchivedInboxRow = {
  id: number;
  provider: string;
  event_id: string;
  received_at: string;
  resource_id: string | null;
  customer_id: string | null;
  customer_email: string | null;
  payload: unknown;
  raw_body: string | null;
  headers: Record<string, string>;
  query_string: string | null;
  last_error: string | null;
  original_sha256: string | null;
  signature_verified_at: string | null;
  redacted_at: string | null;
} & Record<string, unknown>;

export type ArchivedPartition = { name: string; file: string };

/** The partitions whose rows are only in their archive file now (an empty month has none). */
export async function listArchivedPartitions(db: Queryable): Promise<ArchivedPartition[]> {
  const { rows } = await db.query<ArchivedPartition>(
    "SELECT name, archive_file AS file FROM inbox_partitions WHERE state = 'archived' AND archive_file IS NOT NULL ORDER BY range_from",
  );
  return rows;
}

/** The rows of an archived partition's file that `wanted` accepts, each segment checked against its manifest. */
export async function scanArchivedPartition(
  archiveDir: string,
  file: string,
  wanted: (row: ArchivedInboxRow) => boolean,
): Promise<ArchivedInboxRow[]> {
  const found: ArchivedInboxRow[] = [];
  for await (const rows of readArchiveMembers(archiveDir, file)) {
    for (const row of rows as ArchivedInboxRow[]) if (wanted(row)) found.push(row);
  }
  return found;
}

/** Points an archived partition's record at the file that replaced `file` (an erasure's rewrite), with its checksum. */
export async function markPartitionArchive(db: Queryable, name: string, file: string, replacement: string, sha256: string): Promise<void> {
  await db.query(
    "UPDATE inbox_partitions SET archive_file = $3, archive_sha256 = $4 WHERE name = $1 AND archive_file = $2 AND state = 'archived'",
    [name, file, replacement, sha256],
  );
}
