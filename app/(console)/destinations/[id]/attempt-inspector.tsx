import Link from "next/link";
import { DisplayTime } from "@/app/_components/display-time.client";
import { JsonViewer } from "@/app/_components/json-viewer";
import type { DestinationView } from "@/lib/console/get-destination-view";

function Headers({ label, headers }: { label: string; headers: Record<string, string> | null }) {
  if (!headers) return <p className="muted">Not recorded (sent before headers were kept).</p>;
  return (
    <dl className="kv mono" aria-label={label}>
      {Object.entries(headers).map(([name, value]) => (
        <div key={name} style={{ display: "contents" }}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function parsed(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** One attempt: the request as sent (the signature masked) and the answer (its headers and first KiB), and how long it took. */
export function AttemptInspector({ attempt, closeHref }: { attempt: NonNullable<DestinationView["inspected"]>; closeHref: string }) {
  return (
    <section className="panel" id="inspector" aria-label="Attempt inspector">
      <div className="row">
        <h2>
          Attempt {attempt.id}: <span className="mono">{attempt.changeId}</span> v{attempt.version}
        </h2>
        <span className="spacer" />
        <Link href={closeHref}>Close</Link>
      </div>
      <p>
        <DisplayTime value={attempt.attemptedAt} /> · {attempt.outcome} ·{" "}
        <strong data-testid="inspected-status">{attempt.statusCode ?? "no answer"}</strong> in {attempt.latencyMs} ms
        {attempt.error ? ` · ${attempt.error}` : null}
      </p>
      <div className="grid-2">
        <div>
          <h3>Request</h3>
          <Headers label="Request headers" headers={attempt.requestHeaders} />
          <JsonViewer value={parsed(attempt.requestBody)} openDepth={2} />
        </div>
        <div>
          <h3>Response</h3>
          <Headers label="Response headers" headers={attempt.responseHeaders} />
          {attempt.responseExcerpt ? (
            <pre className="raw" data-testid="response-excerpt">
              {attempt.responseExcerpt}
            </pre>
          ) : (
            <p className="muted">No body.</p>
          )}
          <p className="muted">The first KiB of the answer is kept.</p>
        </div>
      </div>
    </section>
  );
}
