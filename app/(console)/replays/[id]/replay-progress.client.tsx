"use client";

import Link from "next/link";
import { useEffect, useState } from "react";
import { StatusBadge } from "@/app/_components/status-badge";

type Run = { id: number; expected: number; replayed: number; status: string; error: string | null };

/** Follows a replay run until it is done (polls its progress every second). */
export function ReplayProgress({ initial }: { initial: Run }) {
  const [run, setRun] = useState(initial);
  const finished = run.status === "done" || run.status === "failed";
  useEffect(() => {
    if (finished) return;
    const timer = setInterval(async () => {
      const response = await fetch(`/api/replays/${run.id}`, { cache: "no-store" });
      if (response.ok) setRun(await response.json());
    }, 1000);
    return () => clearInterval(timer);
  }, [finished, run.id]);
  return (
    <section className="panel" aria-live="polite">
      <div className="row">
        <StatusBadge status={run.status} />
        <span data-testid="replay-progress">
          {run.replayed} / {run.expected} events replayed
        </span>
      </div>
      <progress max={Math.max(run.expected, 1)} value={run.replayed} style={{ width: "100%" }} aria-label="Replay progress" />
      {run.error ? <p className="banner bad">{run.error}</p> : null}
      {finished ? (
        <p>
          <Link href="/events?status=pending">Pending events</Link> · <Link href="/events">All events</Link>
        </p>
      ) : null}
    </section>
  );
}
