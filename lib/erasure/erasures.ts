import type { PgBoss } from "pg-boss";
import { recordAudit, type Actor } from "../audit/record-audit";
import { countAuditNaming, redactAuditDetails } from "../audit/redact-audit-details";
import { withTransaction, type Pool, type Queryable } from "../db/pool";
import { redactDeliveryAttempts } from "../destinations/redact-attempts";
import { listArchivedPartitions } from "../inbox/partitions/archived-partition-rows";
import {
  redactArchivedPartition,
  removeReplacedPartitionArchives,
  redactArchiveFile,
  redactInboxEvents,
  redactInboxTraces,
  redactSignatureFailures,
  removeReplacedArchive,
  waitForInboxWriters,
} from "../inbox/erasure/redact-stored-events";
import { utcTimeSql } from "../outbox/payment-change";
import { redactChangeCustomers } from "../outbox/redact-changes";
import { eraseCustomerFromPayments } from "../payments/erase-customer";
import { REDACTED, identifierHash, redactText } from "../providers/personal-data";
import { onClient } from "../queue/boss";
import { QUEUES } from "../queue/queues";
import {
  findSubject,
  isEmptyScope,
  searchSubject,
  type BodiesRead,
  type SubjectStore,
  requireHashKey,
  subjectHash,
  subjectIdentifier,
  type Subject,
  type SubjectScope,
} from "./find-subject";

// A data subject's erasure (LGPD art. 18 VI, GDPR art. 17): one job, recorded in privacy_erasures.
// The subject is found once, when the job starts, and what was found (the scope) is kept on the row
// while it runs: a rerun after a crash resumes from it (every step is idempotent, so it finishes
// what is left and counts only what it changed), and it is cleared when the erasure ends. The row
// and the audit log keep a keyed hash of the identifier, never the identifier.

export type ErasureCounts = Record<string, number>;

/** A payment an erasure changes: its financial facts, which stay (only its customer goes), and its row id (the console links it). */
export type ErasedPayment = {
  id: number;
  provider: string;
  chargeId: string;
  status: string;
  amount: number | null;
  currency: string | null;
};

export type Erasure = {
  id: number;
  status: "queued" | "running" | "done" | "failed";
  /** Who asked: a console user's e-mail, the CLI's user, or "api" (the host). */
  actor: string;
  subjectKind: string;
  /** The gateway a customer id was asked of; null: every gateway. */
  provider: string | null;
  subjectHash: string;
  counts: ErasureCounts;
  payments: ErasedPayment[];
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
};

export type ErasureDeps = { pool: Pool; archiveDir: string; hashKey: string | undefined };

const BATCH = 200;

export type ErasurePreview = {
  /** How many rows, archived events and archive files the erasure would change now. */
  counts: ErasureCounts;
  /** The archive files it would rewrite, with how many of their events are the subject's. */
  archives: { file: string; events: number }[];
  payments: ErasedPayment[];
};

/** Every inbox row of the subject's, wherever its body is. */
const allEventIds = (scope: SubjectScope) => [
  ...scope.liveEventIds,
  ...Object.values(scope.archived).flat(),
  // A scope kept by a run from before archived partitions were searched has none.
  ...Object.values(scope.partitions ?? {}).flat(),
];

const unredacted = (column: string) => `${column} IS NOT NULL AND ${column} <> '${REDACTED}'`;

/** What an erasure of the subject would change now, changing nothing (the dry run). */
export async function previewErasure(store: SubjectStore, subject: Subject): Promise<ErasurePreview> {
  const db = store.pool;
  const scope = await findSubject(store, subject);
  const { rows: payments } = await db.query<ErasedPayment>(
    `SELECT id, provider, gateway_charge_id AS "chargeId", status, amount, currency
       FROM payments WHERE id = ANY($1::bigint[]) ORDER BY id`,
    [scope.paymentIds],
  );
  const { rows } = await db.query<{ payments: number; changes: number; emails: number }>(
    `SELECT (SELECT count(*)::int FROM payments WHERE id = ANY($1::bigint[])
                AND (${unredacted("customer_id")} OR ${unredacted("customer_email")})) AS payments,
            (SELECT count(*)::int FROM payment_changes WHERE payment_id = ANY($1::bigint[])
                AND (${unredacted("customer_id")} OR ${unredacted("customer_email")})) AS changes,
            (SELECT count(*)::int FROM customer_emails WHERE email = ANY($2::text[])) AS emails`,
    [scope.paymentIds, scope.identifiers.map((identifier) => identifier.toLowerCase())],
  );
  const archives = Object.entries(scope.archived)
    .map(([file, ids]) => ({ file, events: ids.length }))
    .sort((a, b) => a.file.localeCompare(b.file));
  const partitionFiles = new Map((await listArchivedPartitions(db)).map((partition) => [partition.name, partition.file]));
  const partitions = Object.entries(scope.partitions).map(([name, ids]) => ({
    file: partitionFiles.get(name) ?? name,
    events: ids.length,
  }));
  const traces = await redactInboxTraces(db, allEventIds(scope), scope.identifiers, true);
  const deliveries = await redactDeliveryAttempts(db, scope.paymentIds, scope.identifiers, true);
  return {
    counts: {
      payments: rows[0]!.payments,
      payment_changes: rows[0]!.changes,
      customer_emails: rows[0]!.emails,
      ...deliveries,
      ...traces,
      audit_log: await countAuditNaming(db, scope.identifiers),
      signature_failures: await redactSignatureFailures(db, scope.keys, true),
      inbox_events: await redactInboxEvents(db, scope.liveEventIds, scope, true),
      archived_events: archives.reduce((sum, archive) => sum + archive.events, 0),
      archive_files: archives.length,
      partition_events: partitions.reduce((sum, archive) => sum + archive.events, 0),
      partition_archives: partitions.length,
    },
    archives: [...archives, ...partitions],
    payments,
  };
}

/**
 * Records an erasure of the subject and, with `boss`, enqueues its job in the same transaction.
 * An unfinished erasure of the same subject is returned instead (its job resumes it).
 */
export async function startErasure(deps: ErasureDeps & { boss?: PgBoss }, subject: Subject, actor: Actor): Promise<number> {
  const hash = subjectHash(requireHashKey(deps.hashKey), subject);
  return withTransaction(deps.pool, async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [hash]);
    const { rows: open } = await tx.query<{ id: number }>(
      "SELECT id FROM privacy_erasures WHERE subject_hash = $1 AND status IN ('queued', 'running') ORDER BY id LIMIT 1",
      [hash],
    );
    if (open[0]) return open[0].id;
    const { rows } = await tx.query<{ id: number }>(
      `INSERT INTO privacy_erasures (actor, subject_kind, subject_hash, provider, scope)
       VALUES ($1, $2, $3, $4, $5::jsonb) RETURNING id`,
      [actor.name, subjectIdentifier(subject).kind, hash, subject.provider ?? null, JSON.stringify({ subject })],
    );
    const id = rows[0]!.id;
    if (deps.boss) await deps.boss.insert(QUEUES.erasures, [{ data: { erasureId: id } }], { db: onClient(tx) });
    return id;
  });
}

export async function getErasure(db: Queryable, id: number): Promise<Erasure | null> {
  const { rows } = await db.query<Erasure>(
    `SELECT e.id, e.status, e.actor, e.subject_kind AS "subjectKind", e.provider, e.subject_hash AS "subjectHash", e.counts, e.error,
            e.created_at AS "createdAt", e.finished_at AS "finishedAt",
            COALESCE((SELECT json_agg(json_build_object('id', p.id, 'provider', p.provider, 'chargeId', p.gateway_charge_id, 'status', p.status,
                                          'amount', p.amount, 'currency', p.currency) ORDER BY p.id)
                        FROM payments p WHERE p.id = ANY(e.payments)), '[]') AS payments
       FROM privacy_erasures e WHERE e.id = $1`,
    [id],
  );
  return rows[0] ?? null;
}

/** An erasure as the host's API answers it: no subject hash, times as the feed writes them, each payment with its account. */
export type HostErasure = {
  id: string;
  status: Erasure["status"];
  subjectKind: string;
  provider: string | null;
  counts: ErasureCounts;
  payments: (Omit<ErasedPayment, "id"> & { account: string })[];
  error: string | null;
  createdAt: string;
  finishedAt: string | null;
};

export async function getHostErasure(db: Queryable, id: number): Promise<HostErasure | null> {
  const { rows } = await db.query<HostErasure>(
    `SELECT e.id::text AS id, e.status, e.subject_kind AS "subjectKind", e.provider, e.counts, e.error,
            ${utcTimeSql("e.created_at")} AS "createdAt", ${utcTimeSql("e.finished_at")} AS "finishedAt",
            COALESCE((SELECT json_agg(json_build_object('provider', p.provider, 'account', p.gateway_account, 'chargeId', p.gateway_charge_id,
                                          'status', p.status, 'amount', p.amount, 'currency', p.currency) ORDER BY p.id)
                        FROM payments p WHERE p.id = ANY(e.payments)), '[]') AS payments
       FROM privacy_erasures e WHERE e.id = $1`,
    [id],
  );
  return rows[0] ?? null;
}

/** A past or running erasure, as the console lists it: never the identifier, only its kind; how many payments it changed. */
export type ErasureListRow = Omit<Erasure, "payments" | "subjectHash"> & { payments: number };

/** Erasures, newest first, a page of them and how many there are in all. */
export async function listErasures(
  db: Queryable,
  page: { offset: number; limit: number },
): Promise<{ rows: ErasureListRow[]; total: number }> {
  const { rows } = await db.query<ErasureListRow>(
    `SELECT id, status, actor, subject_kind AS "subjectKind", provider, counts, error, cardinality(payments) AS payments,
            created_at AS "createdAt", finished_at AS "finishedAt"
       FROM privacy_erasures ORDER BY id DESC OFFSET $1 LIMIT $2`,
    [page.offset, page.limit],
  );
  const { rows: total } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM privacy_erasures");
  return { rows, total: total[0]!.n };
}

/**
 * `settled`: looked for again once the found keys were remembered and the inbox's writers of that
 * moment ended. `read`: the documents whose bodies were read, and through which row (absent in a
 * scope kept by a run from before it was recorded: every body is read again).
 */
type StoredScope = { subject: Subject; found?: SubjectScope; read?: BodiesRead; settled?: boolean };

async function addCounts(db: Queryable, id: number, counts: ErasureCounts): Promise<void> {
  await db.query(
    `UPDATE privacy_erasures e
        SET counts = (SELECT jsonb_object_agg(key, COALESCE((e.counts ->> key)::int, 0) + COALESCE((($2::jsonb) ->> key)::int, 0))
                        FROM (SELECT jsonb_object_keys(e.counts || $2::jsonb) AS key) k)
      WHERE id = $1`,
    [id, JSON.stringify(counts)],
  );
}

/**
 * Test hook: called after each committed step (a test stops the job there, as a crash would), and
 * with "subject_found" once the subject is found, before the keys found are remembered (a test
 * stores a delivery there, as one arriving while the subject is looked for would).
 */
export type StepHook = (step: string) => void | Promise<void>;

/**
 * Runs (or resumes) an erasure. Steps: the inbox rows, each archive file, the payments with their
 * changes and delivery attempts, the signature failures; then the identifiers' keyed hashes, the
 * audit entry and the end of the row (its scope cleared). Returns the finished erasure.
 */
export async function executeErasure(deps: ErasureDeps, id: number, onStep: StepHook = () => undefined): Promise<Erasure | null> {
  const hashKey = requireHashKey(deps.hashKey);
  const lock = await deps.pool.connect();
  try {
    const { rows: locked } = await lock.query<{ ok: boolean }>("SELECT pg_try_advisory_lock(hashtext('privacy_erasure'), $1::int) AS ok", [
      id,
    ]);
    // Another worker runs it right now: that one finishes it.
    if (!locked[0]!.ok) return getErasure(deps.pool, id);
    try {
      await runSteps(deps, hashKey, id, onStep);
    } catch (error) {
      // What an error says may quote the subject (a constraint's detail, a value): it is kept, and
      // thrown on to the job's output, with their identifiers redacted.
      const { rows: scoped } = await deps.pool
        .query<{ scope: StoredScope | null }>("SELECT scope FROM privacy_erasures WHERE id = $1", [id])
        .catch(() => ({ rows: [] as { scope: StoredScope | null }[] }));
      const scope = scoped[0]?.scope;
      const identifiers = scope ? [subjectIdentifier(scope.subject).value, ...(scope.found?.identifiers ?? [])] : [];
      const message = redactText(error instanceof Error ? error.message : String(error), identifiers).text.slice(0, 500);
      await deps.pool.query("UPDATE privacy_erasures SET error = $2 WHERE id = $1", [id, message]).catch(() => undefined);
      throw new Error(message);
    } finally {
      await lock.query("SELECT pg_advisory_unlock(hashtext('privacy_erasure'), $1::int)", [id]);
    }
  } finally {
    lock.release();
  }
  return getErasure(deps.pool, id);
}

/**
 * An erasure whose job ran out of retries (its dead letter): it ends `failed`, with why, and its
 * scope (the identifiers it found) is cleared; the audit log records it with what it had changed. What
 * it changed stays changed and its identifiers stay erased; asked again, a new erasure finds the rest.
 */
export async function failAbandonedErasure(db: Pool, id: number): Promise<void> {
  await withTransaction(db, async (tx) => {
    const { rows } = await tx.query<{ actor: string; subject_hash: string; subject_kind: string; counts: ErasureCounts; error: string }>(
      `UPDATE privacy_erasures
          SET status = 'failed', scope = NULL, finished_at = now(), error = COALESCE(error, 'the worker stopped during this erasure')
        WHERE id = $1 AND status IN ('queued', 'running')
        RETURNING actor, subject_hash, subject_kind, counts, error`,
      [id],
    );
    const row = rows[0];
    if (!row) return;
    await recordAudit(tx, {
      actor: row.actor,
      action: "privacy_erasure",
      details: { erasure: id, subjectHash: row.subject_hash, kind: row.subject_kind, counts: row.counts, failed: row.error },
    });
  });
}

/** Keeps the keyed hashes of identifiers an erasure removes: a later delivery naming one is stored redacted. */
async function rememberErased(db: Queryable, hashKey: string, erasureId: number, keys: readonly string[]): Promise<void> {
  const hashes = [...new Set(keys.map((key) => identifierHash(hashKey, key)))];
  await db.query("INSERT INTO erased_identifiers (hash, erasure_id) SELECT unnest($1::text[]), $2 ON CONFLICT (hash) DO NOTHING", [
    hashes,
    erasureId,
  ]);
}

/** Keeps the scope on the erasure's row and remembers its new keys, in one transaction. */
async function keepScope(db: Pool, hashKey: string, id: number, scope: StoredScope, newKeys: readonly string[]): Promise<void> {
  await withTransaction(db, async (tx) => {
    await tx.query("UPDATE privacy_erasures SET scope = $2::jsonb, payments = $3::bigint[] WHERE id = $1", [
      id,
      JSON.stringify(scope),
      scope.found!.paymentIds,
    ]);
    await rememberErased(tx, hashKey, id, newKeys);
  });
}

const union = <T>(a: readonly T[], b: readonly T[]) => [...new Set([...a, ...b])];

function mergeScopes(a: SubjectScope, b: SubjectScope): SubjectScope {
  const byFile = (x: Record<string, number[]>, y: Record<string, number[]>) =>
    Object.fromEntries(union(Object.keys(x), Object.keys(y)).map((key) => [key, union(x[key] ?? [], y[key] ?? []).sort((m, n) => m - n)]));
  return {
    identifiers: union(a.identifiers, b.identifiers),
    keys: union(a.keys, b.keys),
    paymentIds: union(a.paymentIds, b.paymentIds).sort((m, n) => m - n),
    liveEventIds: union(a.liveEventIds, b.liveEventIds).sort((m, n) => m - n),
    archived: byFile(a.archived, b.archived),
    partitions: byFile(a.partitions ?? {}, b.partitions ?? {}),
  };
}

/**
 * Closes the window between finding the subject and remembering what was found: a delivery stored
 * meanwhile naming only a key found beside the identifier asked for (their CPF, their customer id)
 * was stored as it came. Once the inbox's writers of that moment have ended, every such row is
 * committed and the subject is looked for again by every key; what that finds joins the scope, and
 * new keys are remembered and looked for in turn (a few rounds: each needs a delivery racing it).
 * Bodies are read again only in the rows stored since the look before began (`read`), but for a
 * document no body was read for yet.
 */
async function settleScope(
  deps: ErasureDeps,
  hashKey: string,
  id: number,
  subject: Subject,
  found: SubjectScope,
  read: BodiesRead | undefined,
): Promise<SubjectScope> {
  let scope = found;
  for (let round = 0; round < 3; round += 1) {
    const throughInboxId = await waitForInboxWriters(deps.pool);
    const search = await searchSubject(deps, subject, { known: scope.keys, read });
    read = { documents: union(read?.documents ?? [], search.documentsRead), throughInboxId };
    const again = mergeScopes(scope, search.scope);
    const newKeys = again.keys.filter((key) => !scope.keys.includes(key));
    scope = again;
    if (newKeys.length === 0) break;
    await keepScope(deps.pool, hashKey, id, { subject, found: scope, read }, newKeys);
  }
  await keepScope(deps.pool, hashKey, id, { subject, found: scope, settled: true }, []);
  return scope;
}

async function runSteps(deps: ErasureDeps, hashKey: string, id: number, onStep: StepHook): Promise<void> {
  const { rows } = await deps.pool.query<{ scope: StoredScope | null; actor: string; subject_hash: string; subject_kind: string }>(
    `UPDATE privacy_erasures SET status = 'running' WHERE id = $1 AND status IN ('queued', 'running')
     RETURNING scope, actor, subject_hash, subject_kind`,
    [id],
  );
  const row = rows[0];
  if (!row?.scope) return;
  let { found, read } = row.scope;
  if (!found) {
    // Erased from the start: a delivery naming the identifier asked for, stored while the subject is
    // looked for, is stored redacted; those found beside it, from the moment they are found.
    await rememberErased(deps.pool, hashKey, id, [subjectIdentifier(row.scope.subject).value]);
    // The search sees every row up to this one (no writer in flight): looking again, the bodies it
    // read need reading only in the rows stored after it.
    const throughInboxId = await waitForInboxWriters(deps.pool);
    const search = await searchSubject(deps, row.scope.subject);
    found = search.scope;
    read = { documents: search.documentsRead, throughInboxId };
    await onStep("subject_found");
    await keepScope(deps.pool, hashKey, id, { ...row.scope, found, read }, found.keys);
  }
  if (!row.scope.settled) found = await settleScope(deps, hashKey, id, row.scope.subject, found, read);
  const subject = { identifiers: found.identifiers, erasureId: id };

  for (let start = 0; start < found.liveEventIds.length; start += BATCH) {
    await withTransaction(deps.pool, async (tx) => {
      const changed = await redactInboxEvents(tx, found.liveEventIds.slice(start, start + BATCH), subject);
      await addCounts(tx, id, { inbox_events: changed });
    });
    await onStep("inbox_events");
  }
  // Where the archived events are now: a run that crashed may have rewritten some files already.
  const { rows: archivedNow } = await deps.pool.query<{ file: string; ids: number[] }>(
    `SELECT archive_file AS file, array_agg(id ORDER BY id) AS ids FROM webhook_inbox
      WHERE id = ANY($1::bigint[]) AND archive_file IS NOT NULL GROUP BY archive_file ORDER BY archive_file`,
    [Object.values(found.archived).flat()],
  );
  for (const { file, ids } of archivedNow) {
    const { events, rewritten } = await redactArchiveFile(deps, file, new Set(ids.map(Number)), subject);
    await addCounts(deps.pool, id, { archived_events: events, archive_files: rewritten ? 1 : 0 });
    await onStep("archive_files");
  }
  // What an earlier run rewrote but crashed before removing.
  for (const file of Object.keys(found.archived)) await removeReplacedArchive(deps, file);
  // Archived months: each partition's file rewritten, its record pointing at the new one.
  for (const [partition, ids] of Object.entries(found.partitions ?? {})) {
    const { events, rewritten } = await redactArchivedPartition(deps, partition, new Set(ids), subject);
    await addCounts(deps.pool, id, { partition_events: events, partition_archives: rewritten ? 1 : 0 });
    await removeReplacedPartitionArchives(deps, partition);
    await onStep("partition_archives");
  }

  await withTransaction(deps.pool, async (tx) => {
    const { rows: emails } = await tx.query<{ n: number }>("SELECT count(*)::int AS n FROM customer_emails WHERE email = ANY($1::text[])", [
      found.identifiers.map((identifier) => identifier.toLowerCase()),
    ]);
    const payments = await eraseCustomerFromPayments(tx, found.paymentIds, id);
    const changes = await redactChangeCustomers(tx, found.paymentIds);
    const deliveries = await redactDeliveryAttempts(tx, found.paymentIds, found.identifiers);
    const { rows: left } = await tx.query<{ n: number }>("SELECT count(*)::int AS n FROM customer_emails WHERE email = ANY($1::text[])", [
      found.identifiers.map((identifier) => identifier.toLowerCase()),
    ]);
    await addCounts(tx, id, {
      payments,
      payment_changes: changes,
      ...deliveries,
      customer_emails: emails[0]!.n - left[0]!.n,
    });
  });
  await onStep("payments");
  await withTransaction(deps.pool, async (tx) => {
    await addCounts(tx, id, {
      signature_failures: await redactSignatureFailures(tx, found.keys),
      ...(await redactInboxTraces(tx, allEventIds(found), found.identifiers)),
      audit_log: await redactAuditDetails(tx, found.identifiers),
    });
  });
  await onStep("traces");

  await withTransaction(deps.pool, async (tx) => {
    const { rows: finished } = await tx.query<{ counts: ErasureCounts }>(
      "UPDATE privacy_erasures SET status = 'done', scope = NULL, error = NULL, finished_at = now() WHERE id = $1 RETURNING counts",
      [id],
    );
    await recordAudit(tx, {
      actor: row.actor,
      action: "privacy_erasure",
      details: {
        erasure: id,
        subjectHash: row.subject_hash,
        kind: row.subject_kind,
        counts: finished[0]!.counts,
        empty: isEmptyScope(found),
      },
    });
  });
}
