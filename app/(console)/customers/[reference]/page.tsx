import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Money } from "@/app/_components/money";
import { PaymentsTable } from "@/app/_components/payments-table";
import { requirePagePermission } from "@/app/_server/session";
import { displayZone } from "@/app/_server/display-zone";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { can } from "@/lib/auth/permissions";
import { countEvents } from "@/lib/inbox/queries/count-events";
import { explainOutcomes } from "@/lib/inbox/queries/explain-outcome";
import { listEvents } from "@/lib/inbox/queries/list-events";
import { customerSummary } from "@/lib/payments/customer-summary";
import { customerView } from "@/lib/privacy/customer-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { EventsTable } from "../../events/events-table.client";

export const metadata: Metadata = { title: "Customer" };
export const dynamic = "force-dynamic";

const EVENTS_SHOWN = 50;

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export default async function CustomerPage({ params }: { params: Promise<{ reference: string }> }) {
  const user = await requirePagePermission(PAGE_ACCESS["/customers/[reference]"]);
  const reference = safeDecode((await params).reference).trim();
  if (!reference || reference.length > 320) notFound();
  const { pool } = webRuntime();
  const summary = await customerSummary(pool, reference);
  if (!summary) notFound();
  const filter = { customer: reference };
  const [events, eventCount, zone] = await Promise.all([listEvents(pool, { filter, limit: EVENTS_SHOWN }), countEvents(pool, filter, 10_000), displayZone()]);
  const explanations = await explainOutcomes(pool, events.rows.filter((row) => row.status !== "processed").map((row) => row.id), zone);
  const unmasked = can(user.role, "payload.unmasked");
  const now = new Date().toISOString();
  const title = reference;
  const eventRows = events.rows.map(({ customerEmail, ...row }) => ({
    ...row,
    ...customerView(customerEmail, unmasked),
    explanation: explanations.get(row.id) ?? null,
    occurredAt: row.occurredAt?.toISOString() ?? null,
    receivedAt: row.receivedAt.toISOString(),
  }));
  return (
    <>
      <h1>Customer {title}</h1>
      <section className="panel" aria-labelledby="totals">
        <h2 id="totals">Totals</h2>
        <dl className="kv">
          <dt>E-mails</dt>
          <dd>{summary.emails.map((email) => customerView(email, unmasked).customerShown).join(", ") || "—"}</dd>
          <dt>Customer ids</dt>
          <dd className="mono">{summary.customerIds.join(", ") || "—"}</dd>
          {summary.totals.map((total) => (
            <div key={total.currency ?? "none"} style={{ display: "contents" }}>
              <dt>{total.currency ? total.currency.toUpperCase() : "No currency"}</dt>
              <dd data-testid={`customer-total-${total.currency ?? "none"}`}>
                {total.payments} payment{total.payments === 1 ? "" : "s"} · <Money amount={total.amount} currency={total.currency} /> charged ·{" "}
                <Money amount={total.refunded} currency={total.currency} /> refunded ·{" "}
                {Object.entries(total.byStatus)
                  .map(([status, count]) => `${count} ${status.replaceAll("_", " ")}`)
                  .join(", ")}
              </dd>
            </div>
          ))}
        </dl>
      </section>
      <h2>Payments ({summary.payments.length})</h2>
      <PaymentsTable rows={summary.payments.map((payment) => ({ ...payment, ...customerView(payment.customerEmail, unmasked) }))} now={now} label="Customer payments" />
      <h2>
        Events ({eventCount.total}
        {eventCount.atLeast ? "+" : ""})
      </h2>
      <EventsTable rows={eventRows} sort="received_desc" baseQuery={`q=${encodeURIComponent(reference)}`} now={now} />
      {events.nextCursor ? (
        <p>
          <Link href={`/events?q=${encodeURIComponent(reference)}`}>All {eventCount.total} events in the explorer</Link>
        </p>
      ) : null}
    </>
  );
}
