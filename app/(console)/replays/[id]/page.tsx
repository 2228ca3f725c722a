import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { DisplayTime } from "@/app/_components/display-time.client";
import { requirePageAccess } from "@/app/_server/session";
import { getReplayRunView } from "@/lib/console/get-replay-run-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { ReplayProgress } from "./replay-progress.client";
import { parseRowId } from "@/lib/request/input-schemas";

export const metadata: Metadata = { title: "Replay" };
export const dynamic = "force-dynamic";

export default async function ReplayRunPage({ params }: { params: Promise<{ id: string }> }) {
  await requirePageAccess("/replays/[id]");
  const id = parseRowId((await params).id);
  const view = id === null ? null : await getReplayRunView(webRuntime().pool, id);
  if (!view) notFound();
  const { run } = view;
  return (
    <>
      <h1>Replay #{run.id}</h1>
      <p className="muted">
        Started by {run.actor} at <DisplayTime value={run.createdAt} />. The worker puts the events back to pending in batches and they are
        processed as they go.
      </p>
      <ReplayProgress initial={JSON.parse(JSON.stringify(view))} />
    </>
  );
}
