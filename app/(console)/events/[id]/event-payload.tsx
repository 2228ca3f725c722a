import { CopyButton } from "@/app/_components/copy-button.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import { JsonViewer } from "@/app/_components/json-viewer";
import type { EventPageView } from "@/lib/console/get-event-view";
import { RestoreButton } from "./restore-button.client";

/** The payload as a tree and the raw bytes, or where they went when retention archived them. */
export function EventPayload({ view }: { view: EventPageView }) {
  const { event } = view;
  if (event.archivedAt) {
    return (
      <section className="panel" aria-labelledby="payload">
        <div className="row">
          <h2 id="payload">Payload</h2>
          <span className="badge ignored" data-testid="archived">
            archived
          </span>
          <span className="spacer" />
          {view.may.restore ? <RestoreButton id={event.id} /> : null}
        </div>
        <p className="muted">
          Archived <DisplayTime value={event.archivedAt} /> by retention: the raw bytes, payload and headers are in the archive files, not
          the database. The event still deduplicates resends; replaying it restores it first.
        </p>
      </section>
    );
  }
  return (
    <section className="panel" aria-labelledby="payload">
      <div className="row">
        <h2 id="payload">Payload</h2>
        {event.masked ? <span className="badge pending">customer data masked</span> : null}
        <span className="spacer" />
        <CopyButton text={JSON.stringify(event.payload, null, 2)} label="Copy JSON" />
      </div>
      {event.payload === null ? <p className="muted">Not JSON: see the raw bytes.</p> : <JsonViewer value={event.payload} />}
      <h3>Raw bytes as received</h3>
      {event.raw ? (
        <>
          <div className="row">
            <span className="muted">
              {event.raw.bytes} bytes, {event.raw.encoding}
            </span>
            <CopyButton text={event.raw.text} label="Copy raw" />
            <a className="button" href={`/api/events/${event.id}/raw`} download>
              Download
            </a>
          </div>
          <pre className="raw" data-testid="raw-body">
            {event.raw.text}
          </pre>
        </>
      ) : (
        <p className="muted">Raw bytes are hidden for your role (they can&apos;t be masked without changing them).</p>
      )}
    </section>
  );
}
