import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { DisplayTime } from "@/app/_components/display-time.client";
import { requirePageAccess } from "@/app/_server/session";
import { getReplayRunView } from "@/lib/console/get-replay-run-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { ReplayProgress } from "./replay-progress.client";
import { parseRowId } from "@/lib/request/input-schemas";

export const metadata: Metadata = { title: "Replay" };
export const dynamic = "force-dynamic";

const OUTCOMES = ["processed", "ignored", "failed", "pending"] as const;

export default async function ReplayRunPage({ params }: { params: Promise<{ id: string }> }) {
  await requirePageAccess("/replays/[id]");
  const id = parseRowId((await params).id);
  const view = id === null ? null : await getReplayRunView(webRuntime().pool, id);
  if (!view) notFound();
  const { run, outcomes } = view;
  return (
    <>
      <h1>Replay #{run.id}</h1>
      <p className="muted">
        Started by {run.actor} at <DisplayTime value={run.createdAt} />. The worker puts the events back to pending in batches and they are
        processed as they go.
      </p>
      <ReplayProgress initial={JSON.parse(JSON.stringify(run))} stillPending={outcomes.pending} />
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
