import type { Metadata } from "next";
import { notFound } from "next/navigation";
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
  const timeline = await resourceTimeline(pool, payment.provider, payment.chargeId);
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
    </>
  );
}
