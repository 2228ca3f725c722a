import type { Queryable } from "../db/pool";
import { replayRunOutcomes, type RunOutcomes } from "../inbox/replay/replay-history";
import { getReplayRun, type ReplayRun } from "../inbox/replay/replay-runs";

export type ReplayRunView = { run: ReplayRun; outcomes: RunOutcomes };

/** A bulk replay run and where its replayed events stand now; null when there is no such run. */
export async function getReplayRunView(db: Queryable, id: number): Promise<ReplayRunView | null> {
  const run = await getReplayRun(db, id);
  return run ? { run, outcomes: await replayRunOutcomes(db, run.id) } : null;
}

/** A bulk replay's progress, which its page polls while the run goes on. */
export function getReplayProgress(db: Queryable, id: number): Promise<ReplayRun | null> {
  return getReplayRun(db, id);
}
