import type { Metadata } from "next";
import Link from "next/link";
import { requirePageAccess } from "@/app/_server/session";
import { getReplaysView } from "@/lib/console/get-replays-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { ReplayRunsTable } from "./replay-runs-table.client";

export const metadata: Metadata = { title: "Replays" };
export const dynamic = "force-dynamic";

export default async function ReplaysPage({ searchParams }: { searchParams: Promise<{ before?: string }> }) {
  await requirePageAccess("/replays");
  const view = await getReplaysView(webRuntime().pool, await searchParams);
  return (
    <>
      <div className="row">
        <h1>Replays</h1>
        <span className="spacer" />
        <Link className="button" href="/events?status=failed">
          Find events to replay…
        </Link>
      </div>
      <p className="muted">
        Bulk replay runs, newest first: who started each, with which filter, how far it got and where its events stand now.
      </p>
      <ReplayRunsTable
        runs={view.runs}
        now={new Date().toISOString()}
        paging={{
          summary: view.before ? "Older runs" : "Newest runs",
          prevHref: view.before ? "/replays" : null,
          nextHref: view.nextBefore ? `/replays?before=${view.nextBefore}` : null,
        }}
      />
    </>
  );
}
