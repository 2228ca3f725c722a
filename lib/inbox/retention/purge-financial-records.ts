import { recordAudit } from "../../audit/record-audit";
import { withTransaction, type Queryable } from "../../db/pool";
import { purgeChangesOf } from "../../outbox/purge-changes";
import { lockPaymentsUpdatedBefore, purgePayments } from "../../payments/purge-payments";
import type { RetentionDeps } from "./archive-settled-events";

// Financial retention: the books and their supporting records are kept until the tax authority's
// claim prescribes (5 years from the first day of the year after the fact, Brazil's CTN arts.
// 173-174), and then nothing obliges us to keep them. With FINANCIAL_RETENTION=on, the retention
// job deletes the payments nothing has changed for FINANCIAL_RETENTION_YEARS (6 by default), with
// their whole trail: status history, feed changes (their deliveries follow by cascade) and the
// inbox events that made them, each table by the room that owns it, one transaction per batch.
// Off, nothing is purged.

export type FinancialPurge = { cutoff: Date; payments: number; transitions: number; changes: number; events: number };

// The events of the purged payments: those their history names and any other of the same charge,
// received before the cutoff. A pending one is left alone: it is still to be processed.
const PURGE_EVENTS = `
  WITH gone AS (
    DELETE FROM webhook_inbox w
     WHERE w.received_at < $1 AND w.status <> 'pending'
       AND (w.id = ANY($2::bigint[])
            OR (w.provider, w.resource_id) IN (SELECT * FROM unnest($3::text[], $4::text[])))
    RETURNING w.id, w.provider, w.event_id
  ), keys AS (
    DELETE FROM inbox_event_keys k USING gone
     WHERE k.provider = gone.provider AND k.event_id = gone.event_id AND k.inbox_id = gone.id
  ), attempts AS (
    DELETE FROM processing_attempts a USING gone WHERE a.inbox_id = gone.id
  ), replays AS (
    DELETE FROM event_replays r USING gone WHERE r.inbox_id = gone.id
  )
  SELECT count(*)::int AS n FROM gone`;

async function purgeEvents(db: Queryable, cutoff: Date, inboxIds: number[], charges: { provider: string; chargeId: string }[]) {
  const { rows } = await db.query<{ n: number }>(PURGE_EVENTS, [
    cutoff,
    inboxIds,
    charges.map((charge) => charge.provider),
    charges.map((charge) => charge.chargeId),
  ]);
  return rows[0]!.n;
}

export function financialCutoff(years: number, now = new Date()): Date {
  const cutoff = new Date(now);
  cutoff.setUTCFullYear(cutoff.getUTCFullYear() - years);
  return cutoff;
}

/**
 * Purges the payments untouched for FINANCIAL_RETENTION_YEARS and their trail, in batches of
 * RETENTION_BATCH_SIZE, each batch audited with its counts in its own transaction (a run stopped
 * halfway leaves an audit row for every batch it purged, none for one it did not). Null when the
 * setting is unset (the default): then nothing is ever purged.
 */
export async function purgeFinancialRecords(deps: RetentionDeps, now = new Date()): Promise<FinancialPurge | null> {
  const years = deps.config.retention.financialYears;
  if (years === null) return null;
  const cutoff = financialCutoff(years, now);
  const totals: FinancialPurge = { cutoff, payments: 0, transitions: 0, changes: 0, events: 0 };
  let afterId = 0;
  for (let batchNo = 1; ; batchNo += 1) {
    const batch = await withTransaction(deps.pool, async (tx) => {
      const ids = await lockPaymentsUpdatedBefore(tx, cutoff, afterId, deps.config.retention.batchSize);
      if (ids.length === 0) return null;
      const changes = await purgeChangesOf(tx, ids);
      const payments = await purgePayments(tx, ids);
      const events = await purgeEvents(tx, cutoff, [...payments.inboxIds, ...changes.inboxIds], payments.payments);
      const counts = { payments: payments.payments.length, transitions: payments.transitions, changes: changes.changes, events };
      await recordAudit(tx, {
        actor: "retention",
        action: "financial_retention",
        details: { years, cutoff: cutoff.toISOString(), batch: batchNo, ...counts },
      });
      return { lastId: ids.at(-1)!, ...counts };
    });
    if (!batch) break;
    afterId = batch.lastId;
    totals.payments += batch.payments;
    totals.transitions += batch.transitions;
    totals.changes += batch.changes;
    totals.events += batch.events;
  }
  return totals;
}
