import type { Pool } from "../../db/pool";
import { normalIdentifier } from "../../providers/personal-data";
import { listArchivedPartitions, scanArchivedPartition, type ArchivedInboxRow } from "../partitions/archived-partition-rows";
import { readArchiveMembers, readArchivedEvents, type ArchivedEvent } from "../retention/archive-files";

// Where a subject hides from the database: a whole month archived by RETENTION_PARTITION_MONTHS
// (its rows dropped, only the partition's archive file holds them), and a retention archive's body
// naming a document no column carries (the row keeps its customer columns, not its payload). Both
// are read from the files: a subject's request is rare, and reading every archive is its price.

/** An archived event of the subject: its row's columns, its body from the archive file, and where it is. */
export type ArchivedHit = {
  id: number;
  provider: string;
  resource_id: string | null;
  customer_id: string | null;
  customer_email: string | null;
  payload: unknown;
  /** The archived partition holding the whole row; null for a retention archive's event (its row is in the inbox). */
  partition: string | null;
  archive_file: string | null;
};

export type ArchiveMatch = {
  emails: readonly string[];
  customerIds: readonly string[];
  /** The gateway a customer id is of, when the request named one. */
  provider: string | null;
  documents: readonly string[];
  /** Every event of a payment of theirs is theirs too. */
  charges: readonly { provider: string; chargeId: string }[];
};

const namesDocument = (body: unknown, documents: readonly string[]) => {
  if (documents.length === 0 || body === null || body === undefined) return false;
  const text = JSON.stringify(body);
  const digits = text.replace(/[\s./-]/g, "");
  return documents.some((document) => text.includes(document) || digits.includes(normalIdentifier(document)));
};

/** The subject's events in archived partitions, and (for a document) in retention archives' bodies. */
export async function findArchivedEvents(deps: { pool: Pool; archiveDir: string }, match: ArchiveMatch): Promise<ArchivedHit[]> {
  const emails = new Set(match.emails.map((email) => email.toLowerCase()));
  const customerIds = new Set(match.customerIds);
  const charges = new Set(match.charges.map((charge) => `${charge.provider}:${charge.chargeId}`));
  const hits: ArchivedHit[] = [];
  for (const { name, file } of await listArchivedPartitions(deps.pool)) {
    const rows = await scanArchivedPartition(
      deps.archiveDir,
      file,
      (row) =>
        (row.customer_email !== null && emails.has(row.customer_email.toLowerCase())) ||
        (row.customer_id !== null && customerIds.has(row.customer_id) && (match.provider === null || row.provider === match.provider)) ||
        (row.resource_id !== null && charges.has(`${row.provider}:${row.resource_id}`)) ||
        namesDocument(row.payload, match.documents),
    );
    for (const row of rows) hits.push({ ...pick(row), payload: row.payload, partition: name, archive_file: null });
  }
  if (match.documents.length === 0) return hits;
  const { rows: files } = await deps.pool.query<{ file: string }>(
    "SELECT DISTINCT archive_file AS file FROM webhook_inbox WHERE archive_file IS NOT NULL ORDER BY 1",
  );
  const bodies = new Map<number, unknown>();
  for (const { file } of files) {
    for await (const events of readArchiveMembers(deps.archiveDir, file)) {
      for (const event of events as ArchivedEvent[]) if (namesDocument(event.payload, match.documents)) bodies.set(event.id, event.payload);
    }
  }
  if (bodies.size === 0) return hits;
  const { rows } = await deps.pool.query<Omit<ArchivedHit, "payload" | "partition">>(
    `SELECT id, provider, resource_id, customer_id, customer_email, archive_file FROM webhook_inbox
      WHERE id = ANY($1::bigint[]) AND archive_file IS NOT NULL`,
    [[...bodies.keys()]],
  );
  for (const row of rows) hits.push({ ...row, payload: bodies.get(Number(row.id)), partition: null });
  return hits;
}

const pick = (row: ArchivedInboxRow) => ({
  id: row.id,
  provider: row.provider,
  resource_id: row.resource_id,
  customer_id: row.customer_id,
  customer_email: row.customer_email,
});

/**
 * The bodies of rows whose payload a retention archive holds (their row keeps only the columns),
 * read from their files and set on them: what those bodies name (a document, a phone) is the
 * subject's too, whichever identifier found the row.
 */
export async function readArchivedBodies(
  archiveDir: string,
  rows: Iterable<{ id: number; archive_file: string | null; payload: unknown; partition?: string | null }>,
): Promise<void> {
  const byFile = new Map<string, Map<number, { payload: unknown }>>();
  for (const row of rows) {
    if (row.archive_file === null || row.payload != null || row.partition) continue;
    const inFile = byFile.get(row.archive_file) ?? new Map<number, { payload: unknown }>();
    byFile.set(row.archive_file, inFile.set(Number(row.id), row));
  }
  for (const [file, inFile] of byFile) {
    for (const [id, event] of await readArchivedEvents(archiveDir, file, new Set(inFile.keys()))) inFile.get(id)!.payload = event.payload;
  }
}
