import type { Metadata } from "next";
import Link from "next/link";
import { paramsFromFilter, parseFilterParams, type SearchParams } from "@/lib/console/event-filter-params";
import { requirePageAccess } from "@/app/_server/session";
import { getReplayPreviewView } from "@/lib/console/get-replay-preview-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { BulkReplayForm } from "./bulk-replay-form.client";
import { ReplayDryRun, ReplayScope, ReplaySummary } from "./replay-preview";

export const metadata: Metadata = { title: "Bulk replay" };
export const dynamic = "force-dynamic";

export default async function BulkReplayPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await requirePageAccess("/replays/new");
  const parsed = parseFilterParams(await searchParams);
  if (!parsed.ok) {
    return (
      <>
        <h1>Bulk replay</h1>
        <p className="banner bad" role="alert">
          This link&apos;s filter can&apos;t be used: {parsed.message}. <Link href="/events">Back to the explorer</Link>
        </p>
      </>
    );
  }
  const { pool, config } = webRuntime();
  const view = await getReplayPreviewView(pool, config, parsed.filter);
  const query = paramsFromFilter(parsed.filter);
  // The statuses are said in the preview's sentence; the filter line lists the other conditions.
  const conditions = [...query].filter(([name]) => name !== "status").map(([name, value]) => `${name}=${value}`);
  return (
    <>
      <h1>Bulk replay</h1>
      <ReplayScope view={view} filter={conditions.join(" · ") || "all events"} />
      {view.total > 0 ? (
        <>
          <ReplaySummary view={view} />
          <BulkReplayForm
            filter={JSON.parse(JSON.stringify(parsed.filter))}
            expected={view.total}
            needsConfirmation={view.needsConfirmation}
          />
          <ReplayDryRun view={view} />
        </>
      ) : (
        <p className="panel muted">Nothing to replay with this filter.</p>
      )}
      <p>
        <Link href={`/events?${query.toString()}`}>Back to the explorer</Link>
      </p>
    </>
  );
}
