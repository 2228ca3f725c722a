import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { CustomerLink } from "@/app/_components/customer-link";
import { DisplayTime } from "@/app/_components/display-time.client";
import { Money } from "@/app/_components/money";
import { StatusBadge } from "@/app/_components/status-badge";
import { RecoveredLabel } from "@/app/_components/recovered-label";
import { TimelineTable } from "@/app/_components/timeline-table.client";
import { requirePageAccess } from "@/app/_server/session";
import { getPaymentView } from "@/lib/console/get-payment-view";
import { getPaymentChangesView } from "@/lib/console/get-payment-changes-view";
import { parseRowId } from "@/lib/request/input-schemas";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { FactSources } from "./fact-sources";
import { PaymentChangesTable } from "./payment-changes-table.client";

export const metadata: Metadata = { title: "Payment" };
export const dynamic = "force-dynamic";

export default async function PaymentPage({ params }: { params: Promise<{ id: string }> }) {
  const user = await requirePageAccess("/payments/[id]");
  const id = parseRowId((await params).id);
  const { reads, pool } = webRuntime();
  const view = id === null ? null : await reads.read((replica) => getPaymentView(replica, user.role, id));
  if (!view) notFound();
  const { payment } = view;
  const { changes } = await getPaymentChangesView(pool, payment.id);
  // The latest event reconciliation recovered that moved this payment, if any.
  const recovered = view.timeline.filter((entry) => entry.recovered && entry.applied).at(-1);
  return (
    <>
      <div className="row">
        <h1 className="mono">{payment.chargeId}</h1>
        <StatusBadge status={payment.status} />
        {view.decline ? (
          <span className="decline" data-testid="payment-decline">
            {view.decline}
          </span>
        ) : null}
        {recovered ? <RecoveredLabel at={recovered.receivedAt} /> : null}
      </div>
      <section className="panel">
        <dl className="kv">
          <dt>Provider</dt>
          <dd>{payment.provider}</dd>
          <dt>Account</dt>
          <dd className="mono">
            <Link href={`/payments?account=${encodeURIComponent(payment.account)}`}>{payment.account}</Link>
          </dd>
          <dt>Amount</dt>
          <dd data-testid="payment-amount">
            <Money amount={payment.amount} currency={payment.currency} />
            {view.attemptedOnly ? <span className="muted"> (not captured)</span> : null}
          </dd>
          <dt>Refunded</dt>
          <dd data-testid="payment-refunded">
            <Money amount={payment.amountRefunded} currency={payment.currency} />
          </dd>
          {view.money.disputed > 0 ? (
            <>
              <dt>Disputed</dt>
              <dd data-testid="payment-disputed">
                <Money amount={view.money.disputed} currency={payment.currency} />
              </dd>
            </>
          ) : null}
          {view.money.chargedBack > 0 ? (
            <>
              <dt>Charged back</dt>
              <dd data-testid="payment-charged-back">
                <Money amount={view.money.chargedBack} currency={payment.currency} />
              </dd>
            </>
          ) : null}
          <dt>Net</dt>
          <dd data-testid="payment-net">
            <Money amount={payment.amount === null ? null : view.money.net} currency={payment.currency} />
          </dd>
          <dt>Customer</dt>
          <dd>
            <CustomerLink {...view.customer} /> {payment.customerId ? <span className="mono muted">{payment.customerId}</span> : null}
          </dd>
          <dt>Facts from</dt>
          <dd data-testid="facts-from">
            <FactSources sources={view.factsFrom} registered={payment.registeredBy === "host"} />
          </dd>
          <dt>Created by</dt>
          <dd>{payment.registeredBy === "host" ? "your application (registered)" : "the gateway's events"}</dd>
          <dt>Gateway state as of</dt>
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
        <TimelineTable entries={view.timeline} />
      </section>
      <section className="panel" aria-labelledby="changes">
        <h2 id="changes">Changes told to your application</h2>
        <PaymentChangesTable changes={changes} />
      </section>
    </>
  );
}
