import type { Queryable } from "../db/pool";
import { listReplayRuns, type ReplayRunSummary } from "../inbox/replay/list-replay-runs";
import { parseRowId } from "../request/input-schemas";
import { runState, type ReplayRunState } from "./get-replay-run-view";

export type ReplaysView = { runs: (ReplayRunSummary & { state: ReplayRunState })[]; before: number | undefined; nextBefore: number | null };

/** A page of bulk replay runs, newest first (`before`: the last run id of the previous page; a bad one starts over). */
export async function getReplaysView(db: Queryable, params: { before?: string }): Promise<ReplaysView> {
  const before = parseRowId(params.before) ?? undefined;
  const page = await listReplayRuns(db, { before });
  return { runs: page.runs.map((run) => ({ ...run, state: runState(run, run.outcomes) })), before, nextBefore: page.nextBefore };
}
