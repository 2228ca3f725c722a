import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Breakable } from "@/app/_components/breakable";
import { StatusBadge } from "@/app/_components/status-badge";
import { TimelineTable } from "@/app/_components/timeline-table.client";
import { displayZone } from "@/app/_server/display-zone";
import { requirePageAccess } from "@/app/_server/session";
import { getEventView } from "@/lib/console/get-event-view";
import { parseRowId } from "@/lib/request/input-schemas";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { EventFacts } from "./event-facts";
import { AttemptsTable, ReplayHistoryTable } from "./event-history-tables.client";
import { EventPayload } from "./event-payload";
import { ReplayButton } from "./replay-button.client";

export const metadata: Metadata = { title: "Event" };
export const dynamic = "force-dynamic";

export default async function EventPage({ params }: { params: Promise<{ id: string }> }) {
  const user = await requirePageAccess("/events/[id]");
  const id = parseRowId((await params).id);
  const view = id === null ? null : await getEventView(webRuntime().pool, user.role, id, await displayZone());
  if (!view) notFound();
  const { event, explanation, decidedBy } = view;
  const tone = event.status === "failed" ? "bad" : "warn";
  return (
    <>
      <div className="row">
        <h1>
          {event.provider} · <Breakable text={event.eventType} />
        </h1>
        <StatusBadge status={event.status} reason={event.ignoredReason} explanation={explanation} />
        <span className="spacer" />
        {view.may.replay ? <ReplayButton id={event.id} status={event.status} settledAt={event.processedAt?.toISOString() ?? null} /> : null}
      </div>
      {explanation || event.lastError || view.replayBy ? (
        <div className={`banner ${tone}`} role="status" data-testid={explanation ? "outcome-sentence" : undefined}>
          {explanation || event.lastError ? (
            <p className="sentence">{explanation ?? (event.status === "failed" ? "Last error:" : "Last error (retrying):")}</p>
          ) : null}
          {view.replayBy ? (
            <p className="sentence" data-testid="replay-by">
              {view.replayBy}
            </p>
          ) : null}
          {decidedBy ? (
            <p className="sentence">
              <span className="muted">Decided by:</span>{" "}
              <Link className="mono" href={`/events/${decidedBy.id}`} data-testid="decided-by">
                {decidedBy.eventId}
              </Link>
            </p>
          ) : null}
          {event.lastError ? (
            <p className="sentence">
              <span className="muted">Error as recorded:</span> <span className="mono">{event.lastError}</span>
            </p>
          ) : null}
        </div>
      ) : null}
      <EventFacts view={view} />
      <EventPayload view={view} />
      <section className="panel" aria-labelledby="attempts">
        <h2 id="attempts">Processing attempts</h2>
        <AttemptsTable attempts={view.attempts} />
      </section>
      <section className="panel" aria-labelledby="replays">
        <h2 id="replays">Replay history</h2>
        <ReplayHistoryTable replays={view.replays} now={new Date().toISOString()} />
      </section>
      {event.resourceId ? (
        <section className="panel" aria-labelledby="timeline">
          <h2 id="timeline">Timeline of {event.resourceId}</h2>
          <p className="muted">Every event of this charge in the order the gateway says they happened, and what each did.</p>
          <TimelineTable entries={view.timeline} currentId={event.id} />
        </section>
      ) : null}
    </>
  );
}
