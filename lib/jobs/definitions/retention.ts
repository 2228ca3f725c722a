import { z } from "zod";
import { runRetention, type RetentionResult } from "../../inbox/retention/archive-settled-events";
import { logger } from "../../observability/logger";
import { archiveOldPartitions, type PartitionArchiveOutcome } from "../../inbox/partitions/archive-inbox-partition";
import type { JobDefinition } from "../job-definition";

const retentionData = z.object({
  /** What a run would archive, changing nothing (`cli retention --dry-run`). */
  dryRun: z.boolean().default(false),
});

export type RetentionRun = RetentionResult & { partitions: PartitionArchiveOutcome[] };

/**
 * Archives and purges the payloads of old settled events (one run at a time: its lock), then, with
 * RETENTION_PARTITION_MONTHS set, archives and drops whole monthly partitions that old. Scheduled on
 * RETENTION_CRON, or `cli retention`. A first run over a large backlog takes a while; the next
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
    const { partitionMonths, archiveDir } = deps.config.retention;
    if (dryRun || partitionMonths === 0) return { ...result, partitions: [] };
    const before = new Date();
    before.setUTCMonth(before.getUTCMonth() - partitionMonths);
    return { ...result, partitions: await archiveOldPartitions({ pool: deps.pool, archiveDir }, before, { name: "retention" }) };
  },
  report: ({ events, bytes, batches, skipped, partitions }) => {
    logger("retention").info({ events, bytes, batches, skipped }, "retention run finished");
    for (const outcome of partitions) logger("retention").info(outcome, "inbox partition archive");
  },
};
