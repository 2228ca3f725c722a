import Link from "next/link";
import { CopyButton } from "@/app/_components/copy-button.client";
import { CustomerLink } from "@/app/_components/customer-link";
import { DisplayTime } from "@/app/_components/display-time.client";
import { RecoveredLabel } from "@/app/_components/recovered-label";
import type { EventPageView } from "@/lib/console/get-event-view";

/** The event as normalized (ids, customer, times, attempts) beside the headers it came with. */
export function EventFacts({ view }: { view: EventPageView }) {
  const { event } = view;
  return (
    <div className="grid-2">
      <section className="panel" aria-labelledby="normalized">
        <h2 id="normalized">Normalized</h2>
        <dl className="kv">
          <dt>Inbox id</dt>
          <dd>{event.id}</dd>
          <dt>Account</dt>
          <dd className="mono">
            <Link href={`/events?account=${encodeURIComponent(event.account)}`}>{event.account}</Link>
          </dd>
          <dt>Event id</dt>
          <dd className="mono">
            {event.eventId} <CopyButton text={event.eventId} ariaLabel="Copy event id" />{" "}
            {event.eventIdDerived ? <span className="muted">(derived key)</span> : null}
          </dd>
          <dt>Charge</dt>
          <dd className="mono">
            {view.paymentId ? <Link href={`/payments/${view.paymentId}`}>{event.resourceId}</Link> : (event.resourceId ?? "—")}
          </dd>
          <dt>Customer</dt>
          <dd>
            <CustomerLink {...view.customer} /> {event.customerId ? <span className="mono muted">{event.customerId}</span> : null}
          </dd>
          <dt>Occurred</dt>
          <dd>
            <DisplayTime value={event.occurredAt} />{" "}
            {event.occurredAtPrecision ? (
              <span className="muted" data-testid="occurred-precision">
                (the gateway&apos;s time, to the {event.occurredAtPrecision})
              </span>
            ) : null}
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
            {view.attempts.length} in total{view.replays.length ? `, ${event.attempts} since the last replay` : ""}
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
          {Object.entries(event.headers).map(([name, value]) => (
            <div key={name} style={{ display: "contents" }}>
              <dt>{name}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
        {event.queryString ? <p className="mono">?{event.queryString}</p> : null}
      </section>
    </div>
  );
}
