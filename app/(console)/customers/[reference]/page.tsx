import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Breakable } from "@/app/_components/breakable";
import { PaymentTotals } from "@/app/_components/payment-totals";
import { PaymentsTable } from "@/app/_components/payments-table.client";
import { requirePageAccess } from "@/app/_server/session";
import { displayZone } from "@/app/_server/display-zone";
import { getCustomerView } from "@/lib/console/get-customer-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { EventsTable } from "../../events/events-table.client";

export const metadata: Metadata = { title: "Customer" };
export const dynamic = "force-dynamic";

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export default async function CustomerPage({ params }: { params: Promise<{ reference: string }> }) {
  const user = await requirePageAccess("/customers/[reference]");
  const reference = safeDecode((await params).reference).trim();
  if (!reference || reference.length > 320) notFound();
  const zone = await displayZone();
  const view = await webRuntime().reads.read((pool) => getCustomerView(pool, user.role, reference, zone));
  if (!view) notFound();
  const now = new Date().toISOString();
  const explorer = `/events?q=${encodeURIComponent(reference)}`;
  return (
    <>
      <h1>Customer {reference}</h1>
      <section className="panel" aria-labelledby="who">
        <h2 id="who">Known as</h2>
        <dl className="kv">
          <dt>E-mails</dt>
          <dd>
            {/* One item per e-mail: an address may itself hold a comma. */}
            {view.emails.length > 0 ? (
              <ul className="plain" data-testid="customer-emails">
                {view.emails.map((email) => (
                  <li key={email}>
                    <Breakable text={email} />
                  </li>
                ))}
              </ul>
            ) : (
              "—"
            )}
          </dd>
          <dt>Customer ids</dt>
          <dd className="mono">{view.customerIds.join(", ") || "—"}</dd>
        </dl>
      </section>
      <PaymentTotals totals={view.totals} label="Totals" testId="customer-total" />
      <h2>Payments ({view.payments.length})</h2>
      {view.withoutPayment ? (
        <p className="banner warn" data-testid="events-without-payment">
          <Link href={view.withoutPayment.href}>{view.withoutPayment.sentence}</Link>: their charge is not among the payments below.
        </p>
      ) : null}
      <PaymentsTable rows={view.payments} now={now} label="Customer payments" empty="No payments." />
      <h2>
        Events ({view.eventCount.total}
        {view.eventCount.atLeast ? "+" : ""})
      </h2>
      <EventsTable rows={view.events} now={now} />
      {view.moreEvents ? (
        <p>
          <Link href={explorer}>All {view.eventCount.total} events in the explorer</Link>
        </p>
      ) : null}
    </>
  );
}
