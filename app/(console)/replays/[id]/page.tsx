import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requirePagePermission } from "@/app/_server/session";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { getReplayRun } from "@/lib/inbox/replay-runs";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { ReplayProgress } from "./replay-progress.client";
import { parseRowId } from "@/lib/http/input-schemas";

export const metadata: Metadata = { title: "Replay" };
export const dynamic = "force-dynamic";

export default async function ReplayRunPage({ params }: { params: Promise<{ id: string }> }) {
  await requirePagePermission(PAGE_ACCESS["/replays/[id]"]);
  const id = parseRowId((await params).id);
  const run = id === null ? null : await getReplayRun(webRuntime().pool, id);
  if (!run) notFound();
  return (
    <>
      <h1>Replay #{run.id}</h1>
      <p className="muted">
        Started by {run.actor}. The worker puts the events back to pending in batches and they are processed as they go.
      </p>
      <ReplayProgress initial={JSON.parse(JSON.stringify(run))} />
    </>
  );
}
