import { z } from "zod";
import { sweepPending, type SweepResult } from "../../inbox/process/sweep-pending";
import { logger } from "../../observability/logger";
import type { JobDefinition } from "../job-definition";

const sweepData = z.object({
  /** Pending at least this long (`cli sweep --stale-minutes`); unset, SWEEPER_STALE_MINUTES. */
  staleSeconds: z.number().min(0).optional(),
});

/** Re-dispatches stale pending events (their job was lost); scheduled on SWEEPER_CRON, or `cli sweep`. */
export const sweeperJob: JobDefinition<z.infer<typeof sweepData>, SweepResult> = {
  name: "sweeper",
  data: sweepData,
  queue: { policy: "exclusive", retryLimit: 0, expireInSeconds: 300, deleteAfterSeconds: 3600 },
  schedule: (config) => config.sweeper.cron,
  work: () => ({ localConcurrency: 1, pollingIntervalSeconds: 5 }),
  run: (deps, { staleSeconds }) => sweepPending(deps, staleSeconds === undefined ? {} : { staleSeconds }),
  report: ({ dispatched }) => {
    if (dispatched > 0) logger("sweeper").info({ dispatched }, "re-dispatched stale pending events");
  },
};
