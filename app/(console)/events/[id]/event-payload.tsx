import { CopyButton } from "@/app/_components/copy-button.client";
import { DisplayTime } from "@/app/_components/display-time.client";
import { JsonViewer } from "@/app/_components/json-viewer";
import type { EventPageView } from "@/lib/console/get-event-view";
import { RestoreButton } from "./restore-button.client";

type Redaction = NonNullable<EventPageView["event"]["redaction"]>;

/** What a redacted body is, and what its original proved (the digest only for roles that see bytes). */
function RedactionNotice({ redaction }: { redaction: Redaction }) {
  return (
    <div className="banner warn" role="note" data-testid="redaction-notice">
      <p className="sentence">
        Redacted <DisplayTime value={redaction.at} />: the person this body named is replaced by <code>[redacted]</code> (a data
        subject&apos;s erasure, or <code>PII_AT_REST=redact</code> for this gateway). The bytes stored are the redacted JSON, so they can no
        longer be verified against the gateway&apos;s signature.
      </p>
      <p className="sentence">
        The original bytes&apos; signature was verified <DisplayTime value={redaction.signatureVerifiedAt} />
        {redaction.originalSha256 ? (
          <>
            ; their SHA-256:{" "}
            <span className="mono" style={{ wordBreak: "break-all" }}>
              {redaction.originalSha256}
            </span>
          </>
        ) : null}
        .
      </p>
    </div>
  );
}

/** The payload as a tree and the raw bytes, or where they went when retention archived them. */
export function EventPayload({ view }: { view: EventPageView }) {
  const { event } = view;
  const redaction = event.redaction ? <RedactionNotice redaction={event.redaction} /> : null;
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
        {redaction}
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
        {event.redaction ? <span className="badge ignored">redacted</span> : null}
        <span className="spacer" />
        <CopyButton text={JSON.stringify(event.payload, null, 2)} label="Copy JSON" />
      </div>
      {redaction}
      {event.payload === null ? <p className="muted">Not JSON: see the raw bytes.</p> : <JsonViewer value={event.payload} />}
      <h3>{event.redaction ? "Raw bytes as stored (redacted)" : "Raw bytes as received"}</h3>
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
