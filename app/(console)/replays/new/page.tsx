import type { Metadata } from "next";
import Link from "next/link";
import { paramsFromFilter, parseFilterParams, type SearchParams } from "@/app/_server/event-filter-params";
import { requirePagePermission } from "@/app/_server/session";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { previewReplayEffects } from "@/lib/inbox/replay/preview-replay-effects";
import { previewReplay, replayable } from "@/lib/inbox/replay/replay-events";
import { confirmationRequired } from "@/lib/inbox/replay/replay-runs";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { BulkReplayForm } from "./bulk-replay-form.client";
import { BreakdownTable, EffectsTable, SamplesTable } from "./replay-preview-tables.client";

export const metadata: Metadata = { title: "Bulk replay" };
export const dynamic = "force-dynamic";

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

export default async function BulkReplayPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  await requirePagePermission(PAGE_ACCESS["/replays/new"]);
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
  const { filter } = parsed;
  const { pool, config } = webRuntime();
  const scoped = replayable(filter);
  const [preview, dryRun] = await Promise.all([previewReplay(pool, filter), previewReplayEffects(pool, config, scoped)]);
  const backToExplorer = `/events?${paramsFromFilter(filter).toString()}`;
  const conditions = [...paramsFromFilter(filter).entries()].filter(([name]) => name !== "status");
  return (
    <>
      <h1>Bulk replay</h1>
      <section className="panel" aria-labelledby="preview">
        <h2 id="preview">Preview</h2>
        <p>
          This replay puts back to <strong>pending</strong> and re-processes the stored events that match the explorer&apos;s filter and are{" "}
          <strong>{(scoped.statuses ?? []).join(" or ")}</strong>. It never re-ingests: the same stored bytes are processed again, and
          effects already applied to a payment are not applied twice.
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
      {preview.total > 0 ? (
        <>
          <section className="panel" aria-labelledby="breakdown">
            <h2 id="breakdown">By provider, type and status</h2>
            <BreakdownTable rows={dryRun.breakdown} />
            {dryRun.breakdownCapped ? <p className="muted">Counted over the first matching events only.</p> : null}
          </section>
          <section className="panel" aria-labelledby="effects">
            <h2 id="effects">What it will do to each payment (dry run)</h2>
            <p className="muted">
              Computed by the worker&apos;s own parsing and decision code against each payment as it is now; nothing is written.
              {dryRun.paymentsSampled < preview.total
                ? ` Shown for the ${plural(dryRun.paymentsSampled, "payment")} with the newest matching events.`
                : ""}
            </p>
            <EffectsTable rows={dryRun.effects} />
          </section>
          <section className="panel" aria-labelledby="samples">
            <h2 id="samples">Sample events</h2>
            <SamplesTable rows={dryRun.samples} />
          </section>
          <BulkReplayForm
            filter={JSON.parse(JSON.stringify(filter))}
            expected={preview.total}
            needsConfirmation={confirmationRequired(preview.total, config.replayConfirmThreshold)}
          />
        </>
      ) : (
        <p className="panel muted">Nothing to replay with this filter.</p>
      )}
      <p>
        <Link href={backToExplorer}>Back to the explorer</Link>
      </p>
    </>
  );
}
