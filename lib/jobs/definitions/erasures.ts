import { executeErasure } from "../../erasure/erasures";
import { HEARTBEAT_SECONDS } from "../../queue/boss";
import { QUEUES, erasureJobSchema } from "../../queue/queues";
import type { JobDefinition } from "../job-definition";
import { erasuresAbandonedJob } from "./erasures-abandoned";

/**
 * A data subject's erasure asked for through the host API (POST /api/privacy/erasures), one job
 * each, one at a time per worker. Interrupted, it is retried and resumes from the scope its row
 * keeps; every step is idempotent. When the retries are spent, its dead letter job ends it failed.
 */
export const erasuresJob: JobDefinition<{ erasureId: number }, void> = {
  name: QUEUES.erasures,
  data: erasureJobSchema,
  queue: {
    policy: "standard",
    retryLimit: 10,
    retryDelay: 5,
    retryBackoff: true,
    expireInSeconds: 3600,
    heartbeatSeconds: HEARTBEAT_SECONDS,
    deleteAfterSeconds: 30 * 24 * 3600,
    deadLetter: erasuresAbandonedJob.name,
  },
  work: () => ({ localConcurrency: 1, pollingIntervalSeconds: 2 }),
  run: async ({ pool, config }, { erasureId }) => {
    await executeErasure({ pool, archiveDir: config.retention.archiveDir, hashKey: config.privacyHashKey }, erasureId);
  },
};
