import { failAbandonedReplayRun } from "../../inbox/replay/replay-runs";
import { replayJobSchema } from "../../queue/queues";
import type { JobDefinition } from "../job-definition";

/** Dead letters of `replays`: a run whose job ran out of retries (its worker kept dying) ends failed, with why. */
export const replaysAbandonedJob: JobDefinition<{ runId: number }, void> = {
  name: "replays-abandoned",
  data: replayJobSchema,
  queue: { policy: "standard", retryLimit: 3, expireInSeconds: 300, deleteAfterSeconds: 7 * 24 * 3600 },
  work: () => ({ localConcurrency: 1, pollingIntervalSeconds: 5 }),
  run: ({ pool }, { runId }) => failAbandonedReplayRun(pool, runId),
};
