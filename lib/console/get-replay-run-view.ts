import type { Queryable } from "../db/pool";
import { replayRunOutcomes, type RunOutcomes } from "../inbox/replay/replay-history";
import { getReplayRun, type ReplayRun } from "../inbox/replay/replay-runs";

/**
 * Where a run stands, from its events as well as its job: the job is done once every event is back
 * to pending, but the run is still running until the worker has processed them.
 */
export type ReplayRunState = { status: ReplayRun["status"]; label: string };

export type ReplayRunView = { run: ReplayRun; outcomes: RunOutcomes; state: ReplayRunState };

export function runState(run: Pick<ReplayRun, "status" | "replayed" | "expected">, outcomes: RunOutcomes): ReplayRunState {
  const events = outcomes.processed + outcomes.ignored + outcomes.failed + outcomes.pending;
  if (run.status === "failed") return { status: "failed", label: `failed: ${outcomes.pending} of ${events} pending` };
  if (run.status === "queued") return { status: "queued", label: "queued: waiting for a worker" };
  if (run.status === "running")
    return { status: "running", label: `running: ${run.replayed} of ${run.expected} replayed, ${outcomes.pending} pending` };
  if (outcomes.pending > 0) return { status: "running", label: `running: ${outcomes.pending} of ${events} pending` };
  return { status: "done", label: `done: 0 of ${events} pending` };
}

/** A bulk replay run, where its replayed events stand now and its state; null when there is no such run. */
export async function getReplayRunView(db: Queryable, id: number): Promise<ReplayRunView | null> {
  const run = await getReplayRun(db, id);
  if (!run) return null;
  const outcomes = await replayRunOutcomes(db, run.id);
  return { run, outcomes, state: runState(run, outcomes) };
}
