import type { Metadata } from "next";
import Link from "next/link";
import { paramsFromFilter, parseFilterParams, type SearchParams } from "@/app/_server/event-filter-params";
import { requirePagePermission } from "@/app/_server/session";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { DEFAULT_REPLAY_STATUSES, previewReplay } from "@/lib/inbox/replay-events";
import { confirmationRequired } from "@/lib/inbox/replay-runs";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { BulkReplayForm } from "./bulk-replay-form.client";

export const metadata: Metadata = { title: "Bulk replay" };
export const dynamic = "force-dynamic";

export default async function BulkReplayPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await requirePagePermission(PAGE_ACCESS["/replays/new"]);
  const parsed = parseFilterParams(await searchParams);
  if (!parsed.ok) {
    return (
      <>
        <h1>Bulk replay</h1>
        <p className="banner bad" role="alert">
          This link has an invalid filter: {parsed.message}. <Link href="/events">Back to the explorer</Link>
        </p>
      </>
    );
  }
  const { filter } = parsed;
  const { pool, config } = webRuntime();
  const preview = await previewReplay(pool, filter);
  const statuses = filter.statuses?.length ? filter.statuses.filter((status) => status !== "pending") : DEFAULT_REPLAY_STATUSES;
  const backToExplorer = `/events?${paramsFromFilter(filter).toString()}`;
  const conditions = [...paramsFromFilter(filter).entries()].filter(([name]) => name !== "status");
  return (
    <>
      <h1>Bulk replay</h1>
      <section className="panel" aria-labelledby="preview">
        <h2 id="preview">Preview</h2>
        <p>
          This replay puts back to <strong>pending</strong> and re-processes the stored events that match the explorer&apos;s filter and are{" "}
          <strong>{statuses.join(" or ")}</strong>. It never re-ingests: the same stored bytes are processed again, and effects already
          applied to a payment are not applied twice.
        </p>
        <dl className="kv">
          <dt>Filter</dt>
          <dd>{conditions.length ? conditions.map(([name, value]) => `${name}=${value}`).join(" · ") : "all events"}</dd>
          <dt>Events</dt>
          <dd>
            <strong data-testid="replay-preview-count">{preview.atLeast ? `more than ${preview.total}` : preview.total}</strong>
          </dd>
          <dt>Providers</dt>
          <dd data-testid="replay-preview-providers">
            {Object.entries(preview.byProvider)
              .map(([provider, count]) => `${provider}: ${count}`)
              .join(", ") || "none"}
          </dd>
        </dl>
      </section>
      {preview.total === 0 ? (
        <p className="panel muted">Nothing to replay with this filter.</p>
      ) : (
        <BulkReplayForm
          filter={JSON.parse(JSON.stringify(filter))}
          expected={preview.total}
          needsConfirmation={confirmationRequired(preview.total, config.replayConfirmThreshold)}
        />
      )}
      <p>
        <Link href={backToExplorer}>Back to the explorer</Link>
      </p>
    </>
  );
}
