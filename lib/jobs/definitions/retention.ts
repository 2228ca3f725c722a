import { z } from "zod";
import { runRetention, type RetentionResult } from "../../inbox/retention/archive-settled-events";
import { logger } from "../../observability/logger";
import { purgeFinancialRecords, type FinancialPurge } from "../../inbox/retention/purge-financial-records";
import { archiveOldPartitions, type PartitionArchiveOutcome } from "../../inbox/partitions/archive-inbox-partition";
import type { JobDefinition } from "../job-definition";

const retentionData = z.object({
  /** What a run would archive, changing nothing (`cli retention --dry-run`). */
  dryRun: z.boolean().default(false),
});

/** `financial`: what financial retention purged; null when FINANCIAL_RETENTION is off or on a dry run. */
export type RetentionRun = RetentionResult & { partitions: PartitionArchiveOutcome[]; financial: FinancialPurge | null };

/**
 * Archives and purges the payloads of old settled events (one run at a time: its lock), then, with
 * RETENTION_PARTITION_MONTHS set, archives and drops whole monthly partitions that old, and with
 * FINANCIAL_RETENTION=on, purges payments untouched for FINANCIAL_RETENTION_YEARS with their
 * trail. Scheduled on RETENTION_CRON, or `cli retention`. A first run over a large backlog takes a while; the next
 * scheduled run resumes where it stopped.
 */
export const retentionJob: JobDefinition<z.infer<typeof retentionData>, RetentionRun> = {
  name: "retention",
  data: retentionData,
  queue: { policy: "exclusive", retryLimit: 0, expireInSeconds: 6 * 3600, deleteAfterSeconds: 7 * 24 * 3600 },
  schedule: (config) => config.retention.cron,
  work: () => ({ localConcurrency: 1, pollingIntervalSeconds: 30 }),
  run: async (deps, { dryRun }) => {
    const result = await runRetention(deps, { dryRun });
    if (dryRun) return { ...result, partitions: [], financial: null };
    const { partitionMonths, archiveDir } = deps.config.retention;
    const before = new Date();
    before.setUTCMonth(before.getUTCMonth() - partitionMonths);
    const partitions =
      partitionMonths === 0 ? [] : await archiveOldPartitions({ pool: deps.pool, archiveDir }, before, { name: "retention" });
    return { ...result, partitions, financial: await purgeFinancialRecords(deps) };
  },
  report: ({ events, bytes, batches, skipped, partitions, financial }) => {
    logger("retention").info({ events, bytes, batches, skipped }, "retention run finished");
    for (const outcome of partitions) logger("retention").info(outcome, "inbox partition archive");
    if (financial) logger("retention").info(financial, "financial retention purge");
  },
};
