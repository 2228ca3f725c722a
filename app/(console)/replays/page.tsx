import type { Metadata } from "next";
import Link from "next/link";
import { requirePagePermission } from "@/app/_server/session";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { listReplayRuns } from "@/lib/inbox/replay/list-replay-runs";
import { parseRowId } from "@/lib/request/input-schemas";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { ReplayRunsTable } from "./replay-runs-table.client";

export const metadata: Metadata = { title: "Replays" };
export const dynamic = "force-dynamic";

export default async function ReplaysPage({ searchParams }: { searchParams: Promise<{ before?: string }> }) {
  await requirePagePermission(PAGE_ACCESS["/replays"]);
  const before = parseRowId((await searchParams).before) ?? undefined;
  const page = await listReplayRuns(webRuntime().pool, { before });
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
        runs={page.runs}
        now={new Date().toISOString()}
        paging={{
          summary: before ? "Older runs" : "Newest runs",
          prevHref: before ? "/replays" : null,
          nextHref: page.nextBefore ? `/replays?before=${page.nextBefore}` : null,
        }}
      />
    </>
  );
}
