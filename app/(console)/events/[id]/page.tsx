import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { CopyButton } from "@/app/_components/copy-button.client";
import { JsonViewer } from "@/app/_components/json-viewer";
import { DisplayTime } from "@/app/_components/display-time.client";
import { StatusBadge } from "@/app/_components/status-badge";
import { RecoveredLabel, TimelineTable } from "@/app/_components/timeline-table";
import { requirePagePermission } from "@/app/_server/session";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { can } from "@/lib/auth/permissions";
import { CustomerLink } from "@/app/_components/customer-link";
import { displayZone } from "@/app/_server/display-zone";
import { explainOutcomes } from "@/lib/inbox/queries/explain-outcome";
import { getEvent, listAttempts, resourceTimeline } from "@/lib/inbox/queries/get-event";
import { replayHistory } from "@/lib/inbox/replay/replay-history";
import { customerView } from "@/lib/privacy/customer-view";
import { getPayment } from "@/lib/payments/get-payment";
import { attemptViews, eventView } from "@/lib/privacy/views-for-role";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { ReplayButton } from "./replay-button.client";
import { RestoreButton } from "./restore-button.client";
import { parseRowId } from "@/lib/request/input-schemas";

export const metadata: Metadata = { title: "Event" };
export const dynamic = "force-dynamic";

/** The raw body as text when it is UTF-8 (as webhooks are), else base64, said so. */
function rawText(raw: Buffer): { text: string; encoding: "utf-8" | "base64" } {
  const text = raw.toString("utf8");
  return Buffer.from(text, "utf8").equals(raw) ? { text, encoding: "utf-8" } : { text: raw.toString("base64"), encoding: "base64" };
}

export default async function EventPage({ params }: { params: Promise<{ id: string }> }) {
  const user = await requirePagePermission(PAGE_ACCESS["/events/[id]"]);
  const id = parseRowId((await params).id);
  if (id === null) notFound();
  const { pool } = webRuntime();
  const stored = await getEvent(pool, id);
  if (!stored) notFound();
  const event = eventView(user.role, stored);
  const zone = await displayZone();
  const [attempts, timeline, payment, replays, explanations] = await Promise.all([
    listAttempts(pool, id).then((rows) => attemptViews(user.role, rows)),
    event.resourceId ? resourceTimeline(pool, event.provider, event.resourceId) : Promise.resolve([]),
    event.resourceId ? getPayment(pool, event.provider, event.resourceId) : Promise.resolve(null),
    replayHistory(pool, id),
    explainOutcomes(pool, [id], zone),
  ]);
  const unmasked = can(user.role, "payload.unmasked");
  // A failure's sentence quotes its error, which a masked role sees only as a category.
  const explanation = unmasked || event.status === "ignored" ? explanations.get(id) : undefined;
  const now = new Date().toISOString();
  const mayReplay = can(user.role, "events.replay");
  const { payload, headers } = event;
  const raw = event.rawBody ? rawText(event.rawBody) : null;
  const show = (value: string | null) => value ?? "—";

  return (
    <>
      <div className="row">
        <h1>
          {event.provider} · {event.eventType}
        </h1>
        <StatusBadge status={event.status} reason={event.ignoredReason} explanation={explanation} />
        <span className="spacer" />
        {mayReplay ? <ReplayButton id={event.id} status={event.status} /> : null}
      </div>
      {explanation ? (
        <div className={`banner ${event.status === "failed" ? "bad" : "warn"}`} role="status" data-testid="outcome-sentence">
          <p className="sentence">{explanation}</p>
          {event.lastError ? (
            <p className="sentence">
              <span className="muted">Error as recorded:</span> <span className="mono">{show(event.lastError)}</span>
            </p>
          ) : null}
        </div>
      ) : event.lastError ? (
        <div className={`banner ${event.status === "failed" ? "bad" : "warn"}`} role="status">
          <strong>{event.status === "failed" ? "Last error:" : "Last error (retrying):"}</strong> <span className="mono">{show(event.lastError)}</span>
        </div>
      ) : null}
      <div className="grid-2">
        <section className="panel" aria-labelledby="normalized">
          <h2 id="normalized">Normalized</h2>
          <dl className="kv">
            <dt>Inbox id</dt>
            <dd>{event.id}</dd>
            <dt>Event id</dt>
            <dd className="mono">
              {event.eventId} <CopyButton text={event.eventId} ariaLabel="Copy event id" /> {event.eventIdDerived ? <span className="muted">(derived key)</span> : null}
            </dd>
            <dt>Charge</dt>
            <dd className="mono">
              {payment ? <Link href={`/payments/${payment.id}`}>{event.resourceId}</Link> : (event.resourceId ?? "—")}
            </dd>
            <dt>Customer</dt>
            <dd>
              <CustomerLink {...customerView(stored.customerEmail ?? payment?.customerEmail ?? null, unmasked)} />{" "}
              {event.customerId ? <span className="mono muted">{show(event.customerId)}</span> : null}
            </dd>
            <dt>Occurred</dt>
            <dd>
              <DisplayTime value={event.occurredAt} /> <span className="muted">{event.occurredAtPrecision ?? ""}</span>
            </dd>
            <dt>Received</dt>
            <dd>
              <DisplayTime value={event.receivedAt} />
              {event.source === "reconcile" ? <RecoveredLabel at={event.receivedAt} /> : null}
            </dd>
            <dt>Processed</dt>
            <dd>
              <DisplayTime value={event.processedAt} />
            </dd>
            <dt>Attempts</dt>
            <dd>
              {attempts.length} in total{replays.length ? `, ${event.attempts} since the last replay` : ""}
              {event.nextAttemptAt && event.status === "pending" ? (
                <>
                  {" "}
                  · next <DisplayTime value={event.nextAttemptAt} />
                </>
              ) : null}
            </dd>
          </dl>
        </section>
        <section className="panel" aria-labelledby="headers">
          <h2 id="headers">Headers</h2>
          <p className="muted">
            {event.archivedAt
              ? "Archived with the payload; restoring the payload brings them back."
              : "Signature-relevant headers as received; credentials were redacted when stored."}
          </p>
          <dl className="kv mono">
            {Object.entries(headers).map(([name, value]) => (
              <div key={name} style={{ display: "contents" }}>
                <dt>{name}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
          {event.queryString ? <p className="mono">?{event.queryString}</p> : null}
        </section>
      </div>

      {event.archivedAt ? (
        <section className="panel" aria-labelledby="payload">
          <div className="row">
            <h2 id="payload">Payload</h2>
            <span className="badge ignored" data-testid="archived">
              archived
            </span>
            <span className="spacer" />
            {can(user.role, "payload.restore") ? <RestoreButton id={event.id} /> : null}
          </div>
          <p className="muted">
            Archived <DisplayTime value={event.archivedAt} /> by retention: the raw bytes, payload and headers are in the archive
            files, not the database. The event still deduplicates resends; replaying it restores it first.
          </p>
        </section>
      ) : (
      <section className="panel" aria-labelledby="payload">
        <div className="row">
          <h2 id="payload">Payload</h2>
          {event.masked ? <span className="badge pending">customer data masked</span> : null}
          <span className="spacer" />
          <CopyButton text={JSON.stringify(payload, null, 2)} label="Copy JSON" />
        </div>
        {payload === null ? <p className="muted">Not JSON: see the raw bytes.</p> : <JsonViewer value={payload} />}
        <h3>Raw bytes as received</h3>
        {raw && event.rawBody ? (
          <>
            <div className="row">
              <span className="muted">
                {event.rawBody.length} bytes, {raw.encoding}
              </span>
              <CopyButton text={raw.text} label="Copy raw" />
              <a className="button" href={`/api/events/${event.id}/raw`} download>
                Download
              </a>
            </div>
            <pre className="raw" data-testid="raw-body">
              {raw.text}
            </pre>
          </>
        ) : (
          <p className="muted">Raw bytes are hidden for your role (they can't be masked without changing them).</p>
        )}
      </section>
      )}

      <section className="panel" aria-labelledby="attempts">
        <h2 id="attempts">Processing attempts</h2>
        {attempts.length === 0 ? (
          <p className="muted">Not attempted yet.</p>
        ) : (
          <table className="data stack">
            <thead>
              <tr>
                <th className="num">#</th>
                <th>Started</th>
                <th className="num">Duration</th>
                <th>Outcome</th>
                <th>Worker</th>
                <th>Error</th>
              </tr>
            </thead>
            <tbody>
              {attempts.map((attempt) => (
                <tr key={`${attempt.attempt}-${attempt.startedAt.toISOString()}`}>
                  <td className="num" data-label="#">
                    {attempt.attempt}
                  </td>
                  <td data-label="Started">
                    <DisplayTime value={attempt.startedAt} />
                  </td>
                  <td className="num" data-label="Duration">
                    {attempt.durationMs === null ? "—" : `${attempt.durationMs} ms`}
                  </td>
                  <td data-label="Outcome">
                    <StatusBadge status={attempt.outcome} />
                  </td>
                  <td className="mono" data-label="Worker">
                    {attempt.worker ?? ""}
                  </td>
                  <td className="mono" data-label="Error">
                    {attempt.error ? show(attempt.error) : ""}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section className="panel" aria-labelledby="replays">
        <h2 id="replays">Replay history</h2>
        {replays.length === 0 ? (
          <p className="muted">Never replayed.</p>
        ) : (
          <table className="data stack" data-testid="replay-history">
            <thead>
              <tr>
                <th>When</th>
                <th>Who</th>
                <th>Was</th>
                <th>Run</th>
              </tr>
            </thead>
            <tbody>
              {replays.map((replay) => (
                <tr key={`${replay.replayedAt.toISOString()}-${replay.runId}`}>
                  <td data-label="When">
                    <DisplayTime value={replay.replayedAt} now={now} />
                  </td>
                  <td data-label="Who">{replay.actor}</td>
                  <td data-label="Was">
                    <StatusBadge status={replay.previousStatus} />
                  </td>
                  <td data-label="Run">{replay.runId ? <Link href={`/replays/${replay.runId}`}>bulk run #{replay.runId}</Link> : "this event alone"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      {event.resourceId ? (
        <section className="panel" aria-labelledby="timeline">
          <h2 id="timeline">Timeline of {event.resourceId}</h2>
          <p className="muted">Every event of this charge in the order the gateway says they happened, and what each did.</p>
          <TimelineTable entries={timeline} currentId={event.id} />
        </section>
      ) : null}
    </>
  );
}
