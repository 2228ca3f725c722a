import { readdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { sha256Hex } from "../../crypto/digest";
import { withTransaction, type Pool, type Queryable } from "../../db/pool";
import {
  REDACTED,
  identifierRegexSource,
  normalIdentifier,
  numberDigits,
  redactPayload,
  redactText,
  type RedactionTarget,
} from "../../providers/personal-data";
import { findDriver } from "../../providers/registry";
import { jsonbText } from "../ingest/normalize-event";
import { markPartitionArchive, type ArchivedInboxRow } from "../partitions/archived-partition-rows";
import { partitionArchiveFile, sha256OfFile } from "../partitions/partition-names";
import { appendArchiveSegment, readArchiveMembers, readManifest, removeArchiveFile, type ArchivedEvent } from "../retention/archive-files";
import { RETENTION_LOCK_KEY } from "../retention/archive-settled-events";

// A data subject's erasure, as the inbox sees it: each stored body of theirs (in the row or in a
// retention archive) is replaced by its redaction, by the driver's personal-data paths and the
// subject's identifiers. What the original bytes proved stays: their SHA-256 (original_sha256) and
// that their signature was verified when the row was received (signature_verified_at). Every step
// is idempotent: a redaction of a redacted body changes nothing, so a rerun only finishes the rest.

type Subject = { identifiers: readonly string[] };

const targetFor = (provider: string, subject: Subject): RedactionTarget => ({
  paths: findDriver(provider)?.personalData ?? [],
  identifiers: subject.identifiers,
});

/** Bytes as their redaction: a JSON body re-serialized redacted (its own key order), anything else as text. */
function redactBytes(raw: Buffer, target: RedactionTarget): Buffer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString("utf8"));
  } catch {
    return Buffer.from(redactText(raw.toString("utf8"), target.identifiers).text);
  }
  const { value, changed } = redactPayload(parsed, target);
  return changed === 0 ? raw : Buffer.from(JSON.stringify(value));
}

function redactHeaders(headers: Record<string, string>, identifiers: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, redactText(value, identifiers).text]));
}

/** A customer column of the subject's: REDACTED when it names one of their identifiers. */
function customerColumn(value: string | null, erased: ReadonlySet<string>): string | null {
  return value !== null && erased.has(normalIdentifier(value)) ? REDACTED : value;
}

type LiveRow = {
  id: number;
  provider: string;
  payload: unknown;
  raw_body: Buffer | null;
  headers: Record<string, string>;
  query_string: string | null;
  last_error: string | null;
  customer_id: string | null;
  customer_email: string | null;
};

/**
 * Redacts the subject's events still in the inbox (not archived), on `db` (the erasure's
 * transaction, which locks them); with `dryRun`, only counts those it would change (a notice that
 * names nobody is the subject's, and has nothing to redact). Returns how many rows changed.
 */
export async function redactInboxEvents(db: Queryable, ids: readonly number[], subject: Subject, dryRun = false): Promise<number> {
  if (ids.length === 0) return 0;
  const { rows } = await db.query<LiveRow>(
    `SELECT id, provider, payload, raw_body, headers, query_string, last_error, customer_id, customer_email
       FROM webhook_inbox WHERE id = ANY($1::bigint[]) AND archived_at IS NULL ORDER BY id ${dryRun ? "" : "FOR UPDATE"}`,
    [ids],
  );
  const erased = new Set(subject.identifiers.map(normalIdentifier));
  let changed = 0;
  for (const row of rows) {
    const target = targetFor(row.provider, subject);
    const payload = row.payload === null ? null : redactPayload(row.payload, target).value;
    const rawBody = row.raw_body === null ? null : redactBytes(row.raw_body, target);
    const next = {
      payload: payload === null ? null : jsonbText(payload),
      headers: JSON.stringify(redactHeaders(row.headers, subject.identifiers)),
      queryString: row.query_string === null ? null : redactText(row.query_string, subject.identifiers).text,
      lastError: row.last_error === null ? null : redactText(row.last_error, subject.identifiers).text,
      customerId: customerColumn(row.customer_id, erased),
      customerEmail: customerColumn(row.customer_email, erased),
    };
    const same =
      next.payload === (row.payload === null ? null : jsonbText(row.payload)) &&
      (rawBody === null || rawBody.equals(row.raw_body!)) &&
      next.headers === JSON.stringify(row.headers) &&
      next.queryString === row.query_string &&
      next.lastError === row.last_error &&
      next.customerId === row.customer_id &&
      next.customerEmail === row.customer_email;
    if (same) continue;
    changed += 1;
    if (dryRun) continue;
    await db.query(
      `UPDATE webhook_inbox
          SET payload = $2::jsonb, raw_body = $3, headers = $4::jsonb, query_string = $5, last_error = $6,
              customer_id = $7, customer_email = $8,
              original_sha256 = COALESCE(original_sha256, $9), signature_verified_at = COALESCE(signature_verified_at, received_at),
              redacted_at = now()
        WHERE id = $1`,
      [
        row.id,
        next.payload,
        rawBody,
        next.headers,
        next.queryString,
        next.lastError,
        next.customerId,
        next.customerEmail,
        row.raw_body === null ? null : sha256Hex(row.raw_body),
      ],
    );
  }
  return changed;
}

/**
 * Rejected deliveries (signature failures) that name the subject by one of their keys (an e-mail, a
 * customer id, a document, a phone number: not a city or a zip code, which name many people): their
 * excerpt and headers are dropped (an unverified body is nobody's record). With `dryRun`, counts
 * them. Returns how many.
 */
export async function redactSignatureFailures(db: Queryable, keys: readonly string[], dryRun = false): Promise<number> {
  const patterns = keys.filter((key) => key.trim().length >= 3).map((key) => `%${likeEscaped(key.trim())}%`);
  if (patterns.length === 0) return 0;
  const digits = keys.flatMap((key) => numberDigits(key) ?? []);
  const naming = `body_excerpt <> '${REDACTED}'
        AND (body_excerpt ILIKE ANY($1::text[]) OR headers::text ILIKE ANY($1::text[])
             OR regexp_replace(body_excerpt, '[\\s./()+-]', '', 'g') LIKE ANY($2::text[]))`;
  const params = [patterns, digits.map((document) => `%${document}%`)];
  if (dryRun) {
    const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM signature_failures WHERE ${naming}`, params);
    return rows[0]!.n;
  }
  const { rowCount } = await db.query(`UPDATE signature_failures SET body_excerpt = '${REDACTED}', headers = '{}' WHERE ${naming}`, params);
  return rowCount ?? 0;
}

export type InboxTraces = { processing_attempts: number; replay_runs: number };

/**
 * What the inbox wrote about the subject besides their events' rows: a processing attempt's error
 * that quotes them, and a bulk replay whose filter or error names them (support replayed "the
 * events of ana@..."). The identifiers in them become REDACTED; the attempt, its outcome and the
 * run (who, when, how many) stay. With `dryRun`, counts what would change. Returns the rows per table.
 */
export async function redactInboxTraces(
  db: Queryable,
  inboxIds: readonly number[],
  identifiers: readonly string[],
  dryRun = false,
): Promise<InboxTraces> {
  const pattern = identifierRegexSource(identifiers);
  if (pattern === null) return { processing_attempts: 0, replay_runs: 0 };
  const { rows: attempts } = await db.query<{ id: number; error: string }>(
    `SELECT id, error FROM processing_attempts WHERE inbox_id = ANY($1::bigint[]) AND error ~* $2 ORDER BY id ${dryRun ? "" : "FOR UPDATE"}`,
    [inboxIds, pattern],
  );
  const { rows: runs } = await db.query<{ id: number; filter: unknown; error: string | null }>(
    `SELECT id, filter, error FROM replay_runs WHERE filter::text ~* $1 OR error ~* $1 ORDER BY id ${dryRun ? "" : "FOR UPDATE"}`,
    [pattern],
  );
  if (dryRun) return { processing_attempts: attempts.length, replay_runs: runs.length };
  for (const attempt of attempts) {
    await db.query("UPDATE processing_attempts SET error = $2 WHERE id = $1", [attempt.id, redactText(attempt.error, identifiers).text]);
  }
  for (const run of runs) {
    await db.query("UPDATE replay_runs SET filter = $2::jsonb, error = $3 WHERE id = $1", [
      run.id,
      JSON.stringify(redactPayload(run.filter, { paths: [], identifiers }).value),
      run.error === null ? null : redactText(run.error, identifiers).text,
    ]);
  }
  return { processing_attempts: attempts.length, replay_runs: runs.length };
}

const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

/** The file an archive becomes once rewritten by an erasure (the old one is removed once no row names it). */
function rewrittenName(file: string, erasureId: number): string {
  return file.replace(/(\.e\d+)?\.ndjson\.gz$/, `.e${erasureId}.ndjson.gz`);
}

/** Runs `work` holding the retention lock, so no retention run appends to or archives a file meanwhile. */
async function withRetentionLock<T>(pool: Pool, work: () => Promise<T>): Promise<T> {
  const lock = await pool.connect();
  try {
    await lock.query("SELECT pg_advisory_lock($1)", [RETENTION_LOCK_KEY]);
    try {
      return await work();
    } finally {
      await lock.query("SELECT pg_advisory_unlock($1)", [RETENTION_LOCK_KEY]);
    }
  } finally {
    lock.release();
  }
}

export type ArchiveRedaction = { events: number; rewritten: string | null };

/**
 * Rewrites one retention archive file holding some of the subject's events (`ids`): every member is
 * read (checksums verified), the subject's events redacted (raw bytes, their checksum, payload,
 * headers), and the whole file written anew under another name with its manifest; then, in one
 * transaction, every row archived in it points at the new file and the redacted rows at their new
 * checksums (so the restore path verifies what it restores), and the old file is removed. Holds
 * the retention lock, so no retention run appends to the file meanwhile. A crash before the
 * transaction leaves the old file in use (the new one is written over next time); after it, the
 * old file is removed by the rerun (removeReplacedArchive).
 */
export async function redactArchiveFile(
  deps: { pool: Pool; archiveDir: string },
  file: string,
  ids: ReadonlySet<number>,
  subject: Subject & { erasureId: number },
): Promise<ArchiveRedaction> {
  return withRetentionLock(deps.pool, async () => {
    const inFile: number[] = [];
    const redacted: { id: number; sha256: string; originalSha256: string }[] = [];
    const target = await rewriteArchive<ArchivedEvent>(deps.archiveDir, file, subject.erasureId, (event) => {
      inFile.push(event.id);
      if (!ids.has(event.id)) return event;
      const redactTarget = targetFor(event.provider, subject);
      const rawBody = redactBytes(Buffer.from(event.rawBodyBase64, "base64"), redactTarget);
      const next: ArchivedEvent = {
        ...event,
        rawBodySha256: sha256Hex(rawBody),
        rawBodyBase64: rawBody.toString("base64"),
        payload: event.payload === null ? null : redactPayload(event.payload, redactTarget).value,
        headers: redactHeaders(event.headers, subject.identifiers),
      };
      if (JSON.stringify(next) === JSON.stringify(event)) return event;
      redacted.push({ id: event.id, sha256: next.rawBodySha256, originalSha256: event.rawBodySha256 });
      return next;
    });
    if (target === null) return { events: 0, rewritten: null };
    const erased = new Set(subject.identifiers.map(normalIdentifier));
    await withTransaction(deps.pool, async (tx) => {
      await tx.query(`UPDATE webhook_inbox SET archive_file = $2 WHERE id = ANY($3::bigint[]) AND archive_file = $1`, [
        file,
        target,
        inFile,
      ]);
      const { rows } = await tx.query<{ id: number; customer_id: string | null; customer_email: string | null }>(
        "SELECT id, customer_id, customer_email FROM webhook_inbox WHERE id = ANY($1::bigint[]) FOR UPDATE",
        [redacted.map((event) => event.id)],
      );
      const columns = new Map(rows.map((row) => [row.id, row]));
      for (const event of redacted) {
        const row = columns.get(event.id);
        await tx.query(
          `UPDATE webhook_inbox
                SET archive_sha256 = $2, original_sha256 = COALESCE(original_sha256, $3),
                    signature_verified_at = COALESCE(signature_verified_at, received_at), redacted_at = now(),
                    customer_id = $4, customer_email = $5
              WHERE id = $1`,
          [
            event.id,
            event.sha256,
            event.originalSha256,
            customerColumn(row?.customer_id ?? null, erased),
            customerColumn(row?.customer_email ?? null, erased),
          ],
        );
      }
    });
    await removeReplacedArchive(deps, file);
    return { events: redacted.length, rewritten: target };
  });
}

/**
 * Reads every segment of an archive file (checksums verified) through `redact`, which returns the
 * same object for an event it leaves alone; when any changed, writes the file anew under the
 * erasure's name and returns that name, else null (the file untouched).
 */
async function rewriteArchive<T extends { id: number }>(
  archiveDir: string,
  file: string,
  erasureId: number,
  redact: (event: T) => T,
): Promise<string | null> {
  const segments: T[][] = [];
  let changed = false;
  for await (const events of readArchiveMembers(archiveDir, file)) {
    segments.push(
      (events as T[]).map((event) => {
        const next = redact(event);
        if (next !== event) changed = true;
        return next;
      }),
    );
  }
  if (!changed) return null;
  const target = rewrittenName(file, erasureId);
  await removeArchiveFile(archiveDir, target);
  for (const segment of segments) if (segment.length > 0) await appendArchiveSegment(archiveDir, target, segment);
  return target;
}

/** Removes an archive file an erasure replaced, once no row is archived in it (a rerun after a crash finishes this). */
export async function removeReplacedArchive(deps: { pool: Pool; archiveDir: string }, file: string): Promise<boolean> {
  const { rows } = await deps.pool.query("SELECT 1 FROM webhook_inbox WHERE archive_file = $1 LIMIT 1", [file]);
  if (rows.length > 0) return false;
  const exists = await readManifest(deps.archiveDir, file).then(
    () => true,
    () => false,
  );
  if (exists) await removeArchiveFile(deps.archiveDir, file);
  return exists;
}

const hexBytes = (value: string) => Buffer.from(value.replace(/^\\x/, ""), "hex");

/** A whole inbox row of an archived partition, redacted as redactInboxEvents redacts a live one. */
function redactPartitionRow(row: ArchivedInboxRow, subject: Subject, erased: ReadonlySet<string>): ArchivedInboxRow {
  const target = targetFor(row.provider, subject);
  const raw = row.raw_body === null ? null : hexBytes(row.raw_body);
  const rawBody = raw === null ? null : redactBytes(raw, target);
  const next: ArchivedInboxRow = {
    ...row,
    payload: row.payload === null ? null : redactPayload(row.payload, target).value,
    raw_body: rawBody === null ? null : `\\x${rawBody.toString("hex")}`,
    headers: redactHeaders(row.headers, subject.identifiers),
    query_string: row.query_string === null ? null : redactText(row.query_string, subject.identifiers).text,
    last_error: row.last_error === null ? null : redactText(row.last_error, subject.identifiers).text,
    customer_id: customerColumn(row.customer_id, erased),
    customer_email: customerColumn(row.customer_email, erased),
  };
  if (JSON.stringify(next) === JSON.stringify(row)) return row;
  return {
    ...next,
    original_sha256: row.original_sha256 ?? (raw === null ? null : sha256Hex(raw)),
    signature_verified_at: row.signature_verified_at ?? row.received_at,
    redacted_at: new Date().toISOString(),
  };
}

/**
 * Rewrites an archived partition's file holding some of the subject's events (`ids`), as
 * redactArchiveFile does a retention archive: every segment read (checksums verified), the
 * subject's rows redacted, the file written anew under another name, then the partition's record
 * pointed at it with its new checksum (what a restore verifies), then the old file removed.
 */
export async function redactArchivedPartition(
  deps: { pool: Pool; archiveDir: string },
  partition: string,
  ids: ReadonlySet<number>,
  subject: Subject & { erasureId: number },
): Promise<ArchiveRedaction> {
  return withRetentionLock(deps.pool, async () => {
    const { rows } = await deps.pool.query<{ file: string }>(
      "SELECT archive_file AS file FROM inbox_partitions WHERE name = $1 AND state = 'archived' AND archive_file IS NOT NULL",
      [partition],
    );
    const file = rows[0]?.file;
    // Restored meanwhile: its rows are live again, and a rerun of the erasure finds them there.
    if (!file) return { events: 0, rewritten: null };
    const erased = new Set(subject.identifiers.map(normalIdentifier));
    let events = 0;
    const target = await rewriteArchive<ArchivedInboxRow>(deps.archiveDir, file, subject.erasureId, (row) => {
      if (!ids.has(Number(row.id))) return row;
      const next = redactPartitionRow(row, subject, erased);
      if (next !== row) events += 1;
      return next;
    });
    if (target === null) return { events: 0, rewritten: null };
    await markPartitionArchive(deps.pool, partition, file, target, await sha256OfFile(deps.archiveDir, target));
    await removeArchiveFile(deps.archiveDir, file);
    return { events, rewritten: target };
  });
}

/** Removes a partition's archive files an erasure replaced (a rerun after a crash finishes this). */
export async function removeReplacedPartitionArchives(deps: { pool: Pool; archiveDir: string }, partition: string): Promise<void> {
  const { rows } = await deps.pool.query<{ file: string | null }>("SELECT archive_file AS file FROM inbox_partitions WHERE name = $1", [
    partition,
  ]);
  const current = rows[0]?.file;
  if (!current) return;
  const original = partitionArchiveFile(partition);
  const names = await readdir(join(deps.archiveDir, dirname(original))).catch(() => [] as string[]);
  for (const name of names) {
    const file = `${dirname(original)}/${name}`;
    if (file !== current && new RegExp(`^${partition}(\\.e\\d+)?\\.ndjson\\.gz$`).test(name))
      await removeArchiveFile(deps.archiveDir, file);
  }
}

/**
 * Returns once every statement writing the inbox that began before this call has ended. A
 * statement takes its table lock before the snapshot it runs on, so one whose snapshot missed an
 * erasure's newly remembered identifiers held that lock already: waiting for a lock that conflicts
 * with it (SHARE, held for an instant; deliveries queue behind it meanwhile) waits for that statement,
 * and the row it stored unredacted is there for the erasure to find. Bounded by `lock_timeout`.
 *
 * Returns the newest row's id at that instant: every row up to it is committed, and every row stored
 * later has a greater one (its statement takes the lock before it draws its id from the sequence),
 * so a search that begins now sees every row up to it, and looking again needs only the rows after.
 */
export async function waitForInboxWriters(db: Pool, timeoutMs = 30_000): Promise<number> {
  return withTransaction(db, async (tx) => {
    await tx.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(timeoutMs))}`);
    await tx.query("LOCK TABLE webhook_inbox IN SHARE MODE");
    const { rows } = await tx.query<{ id: string | null }>("SELECT max(id)::text AS id FROM webhook_inbox");
    return Number(rows[0]!.id ?? 0);
  });
}
