import type { Metadata } from "next";
import Link from "next/link";
import { paramsFromFilter, parseFilterParams, type SearchParams } from "@/app/_server/event-filter-params";
import { requirePagePermission } from "@/app/_server/session";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { can } from "@/lib/auth/permissions";
import { countEvents } from "@/lib/inbox/count-events";
import { listEvents } from "@/lib/inbox/list-events";
import { eventRowView, maySearch, SEARCH_NEEDS_SUPPORT } from "@/lib/privacy/views-for-role";
import { PROVIDER_NAMES } from "@/lib/config/provider-names";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { EventFilters } from "./event-filters.client";
import { EventsTable } from "./events-table.client";

export const metadata: Metadata = { title: "Events" };
export const dynamic = "force-dynamic";

const PAGE_SIZE = 50;
// Counting stops here (unless the rollup answers exactly): the page never scans the whole inbox.
const COUNT_CAP = 10_000;

export default async function EventsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await requirePagePermission(PAGE_ACCESS["/events"]);
  const params = await searchParams;
  const parsed = parseFilterParams(params);
  if (!parsed.ok) {
    return (
      <>
        <h1>Events</h1>
        <p className="banner bad" role="alert">
          This link has an invalid filter: {parsed.message}. <Link href="/events">Clear filters</Link>
        </p>
      </>
    );
  }
  const { filter, sort, cursor } = parsed;
  if (!maySearch(user.role, { query: filter.search, jsonPath: filter.jsonPath, jsonValue: filter.jsonValue, customer: filter.customer })) {
    return (
      <>
        <h1>Events</h1>
        <p className="banner bad" role="alert">
          {SEARCH_NEEDS_SUPPORT} <Link href="/events">Clear the search</Link>
        </p>
      </>
    );
  }
  const started = performance.now();
  const [page, matching] = await Promise.all([
    listEvents(webRuntime().pool, { filter, sort, cursor, limit: PAGE_SIZE }),
    countEvents(webRuntime().pool, filter, COUNT_CAP),
  ]);
  const serverMs = Math.round(performance.now() - started);
  const query = paramsFromFilter(filter, sort);
  const rows = page.rows.map((row) => ({
    ...eventRowView(user.role, row),
    occurredAt: row.occurredAt?.toISOString() ?? null,
    receivedAt: row.receivedAt.toISOString(),
  }));
  const nextQuery = new URLSearchParams(query);
  if (page.nextCursor) nextQuery.set("cursor", page.nextCursor);
  return (
    <>
      <div className="row">
        <h1>Events</h1>
        <span className="spacer" />
        {can(user.role, "events.replay") ? (
          <Link className="button" href={`/replays/new?${query.toString()}`}>
            Replay these…
          </Link>
        ) : null}
      </div>
      <div className="panel">
        <EventFilters providers={[...PROVIDER_NAMES]} initial={Object.fromEntries(query)} />
      </div>
      <EventsTable rows={rows} sort={sort} baseQuery={query.toString()} />
      <div className="pager">
        {cursor ? <Link href={`/events?${query.toString()}`}>« First page</Link> : null}
        {page.nextCursor ? (
          <Link href={`/events?${nextQuery.toString()}`} rel="next">
            Next page »
          </Link>
        ) : null}
        <span className="spacer" />
        <span className="muted" data-testid="server-time">
          {rows.length} shown of {matching.atLeast ? `more than ${matching.total}` : matching.total} · query {serverMs} ms
        </span>
      </div>
    </>
  );
}
