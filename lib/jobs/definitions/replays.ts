import { executeReplayRun } from "../../inbox/replay/replay-runs";
import { HEARTBEAT_SECONDS } from "../../queue/boss";
import { QUEUES, replayJobSchema } from "../../queue/queues";
import type { JobDefinition } from "../job-definition";
import { replaysAbandonedJob } from "./replays-abandoned";

/**
 * A bulk replay started from the console, one run per job and one at a time per worker. A run
 * interrupted by a dead worker resumes from its last committed batch (retries); when the retries are
 * spent, its dead letter job marks the run failed with the reason.
 */
export const replaysJob: JobDefinition<{ runId: number }, void> = {
  name: QUEUES.replays,
  data: replayJobSchema,
  queue: {
    policy: "standard",
    retryLimit: 3,
    retryDelay: 1,
    retryBackoff: true,
    expireInSeconds: 3600,
    heartbeatSeconds: HEARTBEAT_SECONDS,
    deleteAfterSeconds: 7 * 24 * 3600,
    deadLetter: replaysAbandonedJob.name,
  },
  work: () => ({ localConcurrency: 1, pollingIntervalSeconds: 1 }),
  run: (deps, { runId }) => executeReplayRun(deps, runId),
};
