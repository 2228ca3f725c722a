import type { Metadata } from "next";
import Link from "next/link";
import { eventFilterProviders, paramsFromFilter, parseFilterParams, type SearchParams } from "@/lib/console/event-filter-params";
import { ListHeader } from "@/app/_components/list-header";
import { displayZone } from "@/app/_server/display-zone";
import { requirePageAccess } from "@/app/_server/session";
import { getEventsView } from "@/lib/console/get-events-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { EventFilters } from "../event-filters.client";
import { EventsTable } from "../events-table.client";
import { plural } from "@/lib/text/words";

export const metadata: Metadata = { title: "Events" };
export const dynamic = "force-dynamic";

const PAGE_SIZE = 50;

export default async function EventsPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const user = await requirePageAccess("/events");
  const params = await searchParams;
  const parsed = parseFilterParams(params);
  const { reads, config } = webRuntime();
  const zone = await displayZone();
  const view = parsed.ok ? await reads.read((pool) => getEventsView(pool, user.role, { ...parsed, pageSize: PAGE_SIZE, zone })) : parsed;
  if (!parsed.ok || !view.ok) {
    return (
      <>
        <h1>Events</h1>
        <div className="banner bad" role="alert">
          <p className="sentence">{parsed.ok ? view.ok || view.message : `This link's filter can't be used: ${parsed.message}.`}</p>
          <p className="sentence">
            <Link href="/events">Show all events</Link>
          </p>
        </div>
      </>
    );
  }
  const query = paramsFromFilter(parsed.filter, parsed.sort);
  const pageNumber = Math.max(1, Number(params.page) || 1);
  const link = (key: "cursor" | "before", value: string | null, number: number) =>
    value ? `/events?${new URLSearchParams([...query, [key, value], ["page", String(number)]]).toString()}` : null;
  const pages = Math.max(1, Math.ceil(view.total / PAGE_SIZE));
  const [sortKey, direction] = parsed.sort.split("_");
  return (
    <>
      <ListHeader title="Events" exportHref={`/api/exports/events?${query.toString()}`} exportTestId="export-events">
        {view.mayReplay ? (
          <Link className="button" href={`/replays/new?${query.toString()}`}>
            Replay these…
          </Link>
        ) : null}
      </ListHeader>
      <div className="panel">
        <EventFilters
          providers={eventFilterProviders(config, parsed.filter)}
          initial={Object.fromEntries(query)}
          searchLabel={view.search.label}
        />
        {view.search.searched ? (
          <p className="muted sentence" data-testid="searched">
            {view.search.searched}
          </p>
        ) : null}
      </div>
      <EventsTable
        rows={view.rows}
        now={new Date().toISOString()}
        empty={view.search.empty}
        sort={{ key: sortKey!, desc: direction === "desc" }}
        paging={{
          testId: "events-total",
          summary: `Page ${Math.min(pageNumber, pages)} of ${view.atLeast ? "many" : pages} · ${view.atLeast ? `${view.total.toLocaleString("en-US")}+ events` : plural(view.total, "event")}`,
          prevHref: link("before", view.prevCursor, pageNumber - 1),
          nextHref: link("cursor", view.nextCursor, pageNumber + 1),
          extra: (
            <span className="muted" data-testid="server-time">
              query {view.serverMs} ms
            </span>
          ),
        }}
      />
    </>
  );
}
