"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { StatusBadge } from "@/app/_components/status-badge";

type Run = { id: number; expected: number; replayed: number; status: string; error: string | null };

/**
 * Follows a replay run until it is done (polls its progress every second), then refreshes the
 * page's outcome counts while replayed events are still being processed.
 */
export function ReplayProgress({ initial, stillPending }: { initial: Run; stillPending: number }) {
  const router = useRouter();
  const [run, setRun] = useState(initial);
  const finished = run.status === "done" || run.status === "failed";
  useEffect(() => {
    if (!finished || (stillPending === 0 && initial.status === run.status)) return;
    const timer = setTimeout(() => router.refresh(), 1000);
    return () => clearTimeout(timer);
  }, [finished, stillPending, initial.status, run.status, router]);
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
          {run.replayed} / {run.expected} event{run.expected === 1 ? "" : "s"} replayed
        </span>
      </div>
      <progress max={Math.max(run.expected, 1)} value={run.replayed} style={{ width: "100%" }} aria-label="Replay progress" />
      {run.error ? <p className="banner bad">{run.error}</p> : null}
      {finished ? (
        <p>
          <Link href={`/events?run=${run.id}`}>All events of this run</Link>
        </p>
      ) : null}
    </section>
  );
}
