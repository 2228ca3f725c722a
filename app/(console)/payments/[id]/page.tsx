import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { DeliveryBadge } from "@/app/_components/delivery-badge";
import { DisplayTime } from "@/app/_components/display-time.client";
import { Money } from "@/app/_components/money";
import { StatusBadge } from "@/app/_components/status-badge";
import { RecoveredLabel, TimelineTable } from "@/app/_components/timeline-table";
import { requirePagePermission } from "@/app/_server/session";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { can } from "@/lib/auth/permissions";
import { resourceTimeline } from "@/lib/inbox/queries/get-event";
import { getPaymentById } from "@/lib/payments/get-payment";
import { paymentView } from "@/lib/privacy/views-for-role";
import { customerView } from "@/lib/privacy/customer-view";
import { CustomerLink } from "@/app/_components/customer-link";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { listPaymentChanges } from "@/lib/destinations/list-deliveries";
import { parseRowId } from "@/lib/request/input-schemas";

export const metadata: Metadata = { title: "Payment" };
export const dynamic = "force-dynamic";

export default async function PaymentPage({ params }: { params: Promise<{ id: string }> }) {
  const user = await requirePagePermission(PAGE_ACCESS["/payments/[id]"]);
  const id = parseRowId((await params).id);
  const { pool } = webRuntime();
  const stored = id === null ? null : await getPaymentById(pool, id);
  if (!stored) notFound();
  const payment = paymentView(user.role, stored);
  const unmasked = can(user.role, "payload.unmasked");
  const [timeline, changes] = await Promise.all([resourceTimeline(pool, payment.provider, payment.chargeId), listPaymentChanges(pool, stored.id)]);
  // The latest event reconciliation recovered that moved this payment, if any.
  const recovered = timeline.filter((entry) => entry.recovered && entry.applied).at(-1);
  return (
    <>
      <div className="row">
        <h1 className="mono">{payment.chargeId}</h1>
        <StatusBadge status={payment.status} />
        {recovered ? <RecoveredLabel at={recovered.receivedAt} /> : null}
      </div>
      <section className="panel">
        <dl className="kv">
          <dt>Provider</dt>
          <dd>{payment.provider}</dd>
          <dt>Amount</dt>
          <dd>
            <Money amount={payment.amount} currency={payment.currency} />
          </dd>
          <dt>Refunded</dt>
          <dd>
            <Money amount={payment.amountRefunded} currency={payment.currency} />
          </dd>
          <dt>Customer</dt>
          <dd>
            <CustomerLink {...customerView(stored.customerEmail, unmasked)} />{" "}
            {payment.customerId ? <span className="mono muted">{payment.customerId}</span> : null}
          </dd>
          <dt>Created by</dt>
          <dd>{payment.registeredBy === "host" ? "your application (registered)" : "the gateway's events"}</dd>
          <dt>Last gateway event</dt>
          <dd>
            <DisplayTime value={payment.lastGatewayEventAt} />
          </dd>
          <dt>Updated</dt>
          <dd>
            <DisplayTime value={payment.updatedAt} />
          </dd>
        </dl>
      </section>
      <section className="panel" aria-labelledby="timeline">
        <h2 id="timeline">Event timeline</h2>
        {timeline.length === 0 ? (
          <p className="muted">No events for this charge yet.</p>
        ) : (
          <TimelineTable entries={timeline} />
        )}
      </section>
      <section className="panel" aria-labelledby="changes">
        <h2 id="changes">Changes told to your application</h2>
        {changes.length === 0 ? (
          <p className="muted">No changes yet.</p>
        ) : (
          <table className="data stack" aria-label="Changes">
            <thead>
              <tr>
                <th>Version</th>
                <th>Change</th>
                <th>Cause</th>
                <th>Committed</th>
                <th>Deliveries</th>
              </tr>
            </thead>
            <tbody>
              {changes.map((change) => (
                <tr key={change.changeId}>
                  <td data-label="Version" className="mono">
                    v{change.version} <span className="muted">{change.changeId}</span>
                  </td>
                  <td data-label="Change">
                    {change.previousStatus ?? "new"} → <strong>{change.status}</strong>
                  </td>
                  <td data-label="Cause" className="mono">
                    {change.eventType} <span className="muted">{change.eventId}</span>
                  </td>
                  <td data-label="Committed">
                    <DisplayTime value={change.committedAt} />
                  </td>
                  <td data-label="Deliveries">
                    {change.deliveries.length === 0 ? (
                      <span className="muted">none</span>
                    ) : (
                      change.deliveries.map((delivery) => (
                        <div key={delivery.id}>
                          {delivery.destinationName}: <DeliveryBadge status={delivery.status} />{" "}
                          <span className="muted">
                            {delivery.attempts} attempt{delivery.attempts === 1 ? "" : "s"}
                            {delivery.lastStatusCode ? `, last ${delivery.lastStatusCode}` : ""}
                          </span>
                        </div>
                      ))
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
