import { recordAudit, type Actor } from "../audit/record-audit";
import type { Pool } from "../db/pool";
import { listArchivedPartitions, scanArchivedPartition } from "../inbox/partitions/archived-partition-rows";
import { readArchivedEvents } from "../inbox/retention/archive-files";
import { identifierRegexSource, personalEntries, redactText } from "../providers/personal-data";
import { findDriver } from "../providers/registry";
import { findSubject, requireHashKey, subjectHash, subjectIdentifier, type Subject } from "./find-subject";

// A data subject's access request (LGPD art. 18 II, GDPR art. 15): everything stored about them, as
// JSON. Payloads show the fields that carry the person (the driver's declared paths) and any other
// field naming one of their identifiers; the financial facts around them come with the payments.

type PersonalField = { path: string; value: string | number };

export type SubjectExport = {
  subject: { kind: string; provider: string | null };
  identifiers: string[];
  payments: Record<string, unknown>[];
  events: Record<string, unknown>[];
  changes: Record<string, unknown>[];
  deliveries: Record<string, unknown>[];
  archiveEntries: Record<string, unknown>[];
  signatureFailures: Record<string, unknown>[];
  /** What others wrote naming them: audit entries and bulk replays (a filter on their e-mail), processing errors quoting them. */
  mentions: { auditEntries: Record<string, unknown>[]; replayRuns: Record<string, unknown>[]; processingErrors: Record<string, unknown>[] };
};

/** The fields of a payload that carry the subject: the declared paths, and any string naming an identifier. */
function personalFields(provider: string, payload: unknown, identifiers: readonly string[]): PersonalField[] {
  const declared = personalEntries(payload, findDriver(provider)?.personalData ?? []);
  const seen = new Set(declared.map((field) => field.path));
  const named = personalEntries(
    payload,
    ["*"].flatMap(() => allPaths(payload)),
  ).filter((field) => !seen.has(field.path) && typeof field.value === "string" && redactText(field.value, identifiers).changed > 0);
  return [...declared, ...named];
}

/** Every leaf path of a JSON value (for the fields that name an identifier outside the declared paths). */
function allPaths(value: unknown): string[] {
  const paths: string[] = [];
  const stack: { node: unknown; at: string }[] = [{ node: value, at: "" }];
  while (stack.length > 0) {
    const { node, at } = stack.pop()!;
    if (node !== null && typeof node === "object") {
      for (const [key, child] of Object.entries(node as Record<string, unknown>))
        stack.push({ node: child, at: at === "" ? key : `${at}.${key}` });
    } else if (at !== "") paths.push(at);
  }
  return paths;
}

/** The rows others wrote that name one of the identifiers (what an erasure redacts in them). */
async function mentionsOf(pool: Pool, inboxIds: readonly number[], identifiers: readonly string[]): Promise<SubjectExport["mentions"]> {
  const pattern = identifierRegexSource(identifiers);
  if (pattern === null) return { auditEntries: [], replayRuns: [], processingErrors: [] };
  const [auditEntries, replayRuns, processingErrors] = await Promise.all([
    pool.query(`SELECT id, at, actor, action, details FROM audit_log WHERE details::text ~* $1 ORDER BY id`, [pattern]),
    pool.query(
      `SELECT id, actor, filter, error, created_at AS "createdAt" FROM replay_runs WHERE filter::text ~* $1 OR error ~* $1 ORDER BY id`,
      [pattern],
    ),
    pool.query(
      `SELECT inbox_id AS "inboxId", attempt, started_at AS "startedAt", error FROM processing_attempts
        WHERE inbox_id = ANY($1::bigint[]) AND error ~* $2 ORDER BY id`,
      [inboxIds, pattern],
    ),
  ]);
  return { auditEntries: auditEntries.rows, replayRuns: replayRuns.rows, processingErrors: processingErrors.rows };
}

export async function exportSubject(
  deps: { pool: Pool; archiveDir: string; hashKey: string | undefined },
  subject: Subject,
  actor: Actor,
): Promise<SubjectExport> {
  const hashKey = requireHashKey(deps.hashKey);
  const scope = await findSubject(deps, subject);
  const { pool } = deps;
  const ids = { payments: scope.paymentIds, events: scope.liveEventIds };
  const { rows: payments } = await pool.query(
    `SELECT p.id, p.provider, p.gateway_charge_id AS "chargeId", p.status, p.amount, p.amount_refunded AS "amountRefunded", p.currency,
            p.customer_id AS "customerId", p.customer_email AS "customerEmail", p.created_at AS "createdAt", p.updated_at AS "updatedAt",
            COALESCE((SELECT json_agg(json_build_object('from', t.from_status, 'to', t.to_status, 'amountRefunded', t.to_amount_refunded, 'at', t.applied_at) ORDER BY t.id)
                        FROM payment_transitions t WHERE t.payment_id = p.id), '[]') AS history
       FROM payments p WHERE p.id = ANY($1::bigint[]) ORDER BY p.id`,
    [ids.payments],
  );
  const { rows: events } = await pool.query<Record<string, unknown> & { provider: string; payload: unknown }>(
    `SELECT id, provider, event_id AS "eventId", event_type AS "type", received_at AS "receivedAt", resource_id AS "chargeId",
            customer_id AS "customerId", customer_email AS "customerEmail", headers, query_string AS "queryString", payload
       FROM webhook_inbox WHERE id = ANY($1::bigint[]) ORDER BY id`,
    [[...ids.events, ...Object.values(scope.archived).flat()]],
  );
  const { rows: changes } = await pool.query(
    `SELECT id, payment_id AS "paymentId", version, status, customer_id AS "customerId", customer_email AS "customerEmail",
            event_type AS "causeType", committed_at AS "committedAt"
       FROM payment_changes WHERE payment_id = ANY($1::bigint[]) ORDER BY payment_id, version`,
    [ids.payments],
  );
  const { rows: deliveries } = await pool.query(
    `SELECT d.id, d.destination_id AS "destinationId", d.change_id AS "changeId", d.status, d.attempts,
            COALESCE((SELECT json_agg(json_build_object('at', a.attempted_at, 'statusCode', a.status_code, 'response', a.response_excerpt, 'error', a.error,
                                          'requestHeaders', a.request_headers, 'responseHeaders', a.response_headers) ORDER BY a.id)
                        FROM delivery_attempts a WHERE a.delivery_id = d.id), '[]') AS "attemptRows"
       FROM deliveries d WHERE d.payment_id = ANY($1::bigint[]) ORDER BY d.id`,
    [ids.payments],
  );
  const patterns = scope.identifiers.map((identifier) => `%${identifier.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  const { rows: signatureFailures } = await pool.query(
    `SELECT id, provider, gateway_account AS account, received_at AS "receivedAt", reason, body_excerpt AS "bodyExcerpt"
       FROM signature_failures WHERE body_excerpt ILIKE ANY($1::text[]) OR headers::text ILIKE ANY($1::text[]) ORDER BY id`,
    [patterns],
  );
  const mentions = await mentionsOf(pool, [...ids.events, ...Object.values(scope.archived).flat()], scope.identifiers);
  const archiveEntries: Record<string, unknown>[] = [];
  for (const [file, fileIds] of Object.entries(scope.archived)) {
    const archived = await readArchivedEvents(deps.archiveDir, file, new Set(fileIds));
    for (const event of archived.values()) {
      archiveEntries.push({
        file,
        id: event.id,
        provider: event.provider,
        eventId: event.eventId,
        receivedAt: event.receivedAt,
        personal: personalFields(event.provider, event.payload, scope.identifiers),
      });
    }
  }
  const partitionFiles = new Map((await listArchivedPartitions(pool)).map((partition) => [partition.name, partition.file]));
  for (const [partition, partitionIds] of Object.entries(scope.partitions)) {
    const file = partitionFiles.get(partition);
    if (!file) continue;
    const wanted = new Set(partitionIds);
    for (const row of await scanArchivedPartition(deps.archiveDir, file, (candidate) => wanted.has(Number(candidate.id)))) {
      archiveEntries.push({
        file,
        partition,
        id: row.id,
        provider: row.provider,
        eventId: row.event_id,
        receivedAt: row.received_at,
        personal: personalFields(row.provider, row.payload, scope.identifiers),
      });
    }
  }
  await recordAudit(pool, {
    actor: actor.name,
    ip: actor.ip,
    action: "privacy_export",
    details: {
      subjectHash: subjectHash(hashKey, subject),
      kind: subjectIdentifier(subject).kind,
      payments: payments.length,
      events: events.length,
    },
  });
  return {
    subject: { kind: subjectIdentifier(subject).kind, provider: subject.provider ?? null },
    identifiers: scope.identifiers,
    payments,
    events: events.map(({ payload, ...event }) => ({
      ...event,
      personal: payload === null ? [] : personalFields(event.provider, payload, scope.identifiers),
    })),
    changes,
    deliveries,
    archiveEntries,
    signatureFailures,
    mentions,
  };
}
