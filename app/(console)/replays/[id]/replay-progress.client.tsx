"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { StatusBadge } from "@/app/_components/status-badge";
import type { ReplayRunView } from "@/lib/console/get-replay-run-view";
import { plural } from "@/lib/text/words";

type View = {
  run: Pick<ReplayRunView["run"], "id" | "expected" | "replayed" | "error">;
  outcomes: ReplayRunView["outcomes"];
  state: ReplayRunView["state"];
};

const OUTCOMES = ["processed", "ignored", "failed", "pending"] as const;

/**
 * Follows a replay run (polls it every second) until its job has ended and none of its events is
 * still pending: the run's state and the outcome counts come from the same answer.
 */
export function ReplayProgress({ initial }: { initial: View }) {
  const [view, setView] = useState(initial);
  const { run, outcomes, state } = view;
  const finished = state.status === "done" || state.status === "failed";
  useEffect(() => {
    if (finished) return;
    const timer = setInterval(async () => {
      const response = await fetch(`/api/replays/${run.id}`, { cache: "no-store" });
      if (response.ok) setView(await response.json());
    }, 1000);
    return () => clearInterval(timer);
  }, [finished, run.id]);
  return (
    <>
      <section className="panel" aria-live="polite">
        <div className="row">
          <StatusBadge status={state.status} />
          <span data-testid="replay-state">{state.label}</span>
        </div>
        <p data-testid="replay-progress">
          {run.replayed} / {plural(run.expected, "event")} replayed
        </p>
        <progress max={Math.max(run.expected, 1)} value={run.replayed} style={{ width: "100%" }} aria-label="Replay progress" />
        {run.error ? <p className="banner bad">{run.error}</p> : null}
        {finished ? (
          <p>
            <Link href={`/events?run=${run.id}`}>All events of this run</Link>
          </p>
        ) : null}
      </section>
      <section className="panel" aria-labelledby="outcomes">
        <h2 id="outcomes">Where the replayed events stand</h2>
        <div className="stat-grid" data-testid="replay-outcomes">
          {OUTCOMES.map((status) => (
            <Link key={status} className="stat" href={`/events?run=${run.id}&status=${status}`} data-outcome={status}>
              <div className="value">{outcomes[status]}</div>
              <div className="label">{status}</div>
            </Link>
          ))}
        </div>
      </section>
    </>
  );
}
