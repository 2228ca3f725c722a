import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { DisplayTime } from "@/app/_components/display-time.client";
import { StatusBadge } from "@/app/_components/status-badge";
import { requirePageAccess } from "@/app/_server/session";
import { getErasureView } from "@/lib/console/get-privacy-view";
import { parseRowId } from "@/lib/request/input-schemas";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { NAMED_BY } from "../../named-by";
import { CountsTable, ErasedPaymentsTable } from "../../privacy-tables.client";
import { RefreshWhile } from "./refresh-while.client";

export const metadata: Metadata = { title: "Erasure" };
export const dynamic = "force-dynamic";

const STATE: Record<string, string> = {
  queued: "waiting for a worker",
  running: "running: this page follows it",
  done: "the subject is erased",
  failed: "its retries are spent: what it changed stays changed, and asking again erases the rest",
};

export default async function ErasurePage({ params }: { params: Promise<{ id: string }> }) {
  await requirePageAccess("/privacy/erasures/[id]");
  const id = parseRowId((await params).id);
  const erasure = id === null ? null : await getErasureView(webRuntime().pool, id);
  if (!erasure) notFound();
  return (
    <>
      <h1>Erasure #{erasure.id}</h1>
      <RefreshWhile active={!erasure.finished} />
      <section className="panel" aria-live="polite">
        <div className="row">
          <StatusBadge status={erasure.status} />
          <span data-testid="erasure-state">{STATE[erasure.status] ?? erasure.status}</span>
        </div>
        {erasure.error ? <p className="banner bad">{erasure.error}</p> : null}
        <dl className="kv">
          <dt>Subject named by</dt>
          <dd>
            {NAMED_BY[erasure.subjectKind] ?? erasure.subjectKind}
            {erasure.provider ? ` of ${erasure.provider}` : erasure.subjectKind === "customerId" ? " of any gateway" : ""}{" "}
            <span className="muted">(kept as a keyed hash, never as written)</span>
          </dd>
          <dt>Asked by</dt>
          <dd>{erasure.actor === "api" ? "the host application (API)" : erasure.actor}</dd>
          <dt>Asked</dt>
          <dd>
            <DisplayTime value={erasure.createdAt} />
          </dd>
          <dt>Finished</dt>
          <dd>
            <DisplayTime value={erasure.finishedAt} />
          </dd>
        </dl>
        <p className="muted">
          Each destination is sent one <code>customer.erased</code> message listing the payments below, and the change feed lists it. The
          redacted bodies can no longer be verified against the gateways&apos; signatures; each keeps the original&apos;s SHA-256 and when
          its signature was verified.
        </p>
      </section>
      <h2>What changed</h2>
      <CountsTable
        label="Changed, per table and archive"
        counts={erasure.counts}
        empty={erasure.finished ? "Nothing stored named the subject." : "Nothing changed yet."}
        nothingIn={erasure.finished ? "Nothing to change in" : "Nothing changed yet in"}
      />
      <h2>Payments erased ({erasure.payments.length})</h2>
      <ErasedPaymentsTable label="Payments erased" payments={erasure.payments} />
      <p>
        <Link href="/privacy">All erasures</Link>
      </p>
    </>
  );
}
