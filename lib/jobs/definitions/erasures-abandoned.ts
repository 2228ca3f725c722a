import { failAbandonedErasure } from "../../erasure/erasures";
import { erasureJobSchema } from "../../queue/queues";
import type { JobDefinition } from "../job-definition";

/** Dead letters of `privacy-erasures`: an erasure whose job ran out of retries ends failed, with why, its scope cleared. */
export const erasuresAbandonedJob: JobDefinition<{ erasureId: number }, void> = {
  name: "privacy-erasures-abandoned",
  data: erasureJobSchema,
  queue: { policy: "standard", retryLimit: 3, expireInSeconds: 300, deleteAfterSeconds: 30 * 24 * 3600 },
  work: () => ({ localConcurrency: 1, pollingIntervalSeconds: 5 }),
  run: ({ pool }, { erasureId }) => failAbandonedErasure(pool, erasureId),
};
