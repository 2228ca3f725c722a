import type { Metadata } from "next";
import Link from "next/link";
import { paramsFromFilter, parseFilterParams, type SearchParams } from "@/app/_server/event-filter-params";
import { displayZone } from "@/app/_server/display-zone";
import { requirePagePermission } from "@/app/_server/session";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { can } from "@/lib/auth/permissions";
import { countEvents } from "@/lib/inbox/queries/count-events";
import { explainOutcomes } from "@/lib/inbox/queries/explain-outcome";
import { listEvents } from "@/lib/inbox/queries/list-events";
import { paymentEmails } from "@/lib/payments/customer-summary";
import { customerView } from "@/lib/privacy/customer-view";
import { configuredProviders } from "@/lib/config/configured-providers";
import { eventRowView, maySearch, SEARCH_NEEDS_SUPPORT } from "@/lib/privacy/views-for-role";
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
        <div className="banner bad" role="alert">
          <p className="sentence">This link&apos;s filter can&apos;t be used: {parsed.message}.</p>
          <p className="sentence">
            <Link href="/events">Show all events</Link>
          </p>
        </div>
      </>
    );
  }
  const { filter, sort, cursor, before } = parsed;
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
  const { pool, config } = webRuntime();
  const started = performance.now();
  const [page, matching] = await Promise.all([
    listEvents(pool, { filter, sort, cursor, before, limit: PAGE_SIZE }),
    countEvents(pool, filter, COUNT_CAP),
  ]);
  const serverMs = Math.round(performance.now() - started);
  const zone = await displayZone();
  const [explanations, knownEmails] = await Promise.all([
    explainOutcomes(pool, page.rows.filter((row) => row.status === "ignored" || row.status === "failed").map((row) => row.id), zone),
    paymentEmails(pool, page.rows.flatMap((row) => (!row.customerEmail && row.resourceId ? [{ provider: row.provider, chargeId: row.resourceId }] : []))),
  ]);
  const query = paramsFromFilter(filter, sort);
  const unmasked = can(user.role, "payload.unmasked");
  const rows = page.rows.map((stored) => {
    const { customerEmail: _masked, ...row } = eventRowView(user.role, stored);
    return {
      ...row,
      ...customerView(stored.customerEmail ?? knownEmails.get(`${row.provider}/${row.resourceId}`) ?? null, unmasked),
      // A failure's sentence quotes its error, which a masked role sees only as a category.
      explanation: unmasked || row.status === "ignored" ? (explanations.get(row.id) ?? null) : null,
      occurredAt: row.occurredAt?.toISOString() ?? null,
      receivedAt: row.receivedAt.toISOString(),
    };
  });
  const pageNumber = Math.max(1, Number(params.page) || 1);
  const link = (key: "cursor" | "before", value: string, number: number) => {
    const next = new URLSearchParams(query);
    next.set(key, value);
    next.set("page", String(number));
    return `/events?${next.toString()}`;
  };
  const pages = Math.max(1, Math.ceil(matching.total / PAGE_SIZE));
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
        <EventFilters providers={[...new Set([...configuredProviders(config), ...(filter.provider ? [filter.provider] : [])])]} initial={Object.fromEntries(query)} />
      </div>
      <EventsTable rows={rows} sort={sort} baseQuery={query.toString()} now={new Date().toISOString()} />
      <nav className="pager" aria-label="Pages">
        {page.prevCursor ? (
          <Link href={link("before", page.prevCursor, pageNumber - 1)} rel="prev">
            « Previous
          </Link>
        ) : (
          <span aria-disabled="true">« Previous</span>
        )}
        <span data-testid="events-total">
          Page {Math.min(pageNumber, pages)} of {matching.atLeast ? "many" : pages} · {matching.total.toLocaleString("en-US")}
          {matching.atLeast ? "+" : ""} event{matching.total === 1 ? "" : "s"}
        </span>
        {page.nextCursor ? (
          <Link href={link("cursor", page.nextCursor, pageNumber + 1)} rel="next">
            Next »
          </Link>
        ) : (
          <span aria-disabled="true">Next »</span>
        )}
        <span className="spacer" />
        <span className="muted" data-testid="server-time">
          query {serverMs} ms
        </span>
      </nav>
    </>
  );
}
