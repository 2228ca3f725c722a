import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { DisplayTime } from "@/app/_components/display-time.client";
import { StatusBadge } from "@/app/_components/status-badge";
import { requirePageAccess } from "@/app/_server/session";
import { getErasureView } from "@/lib/console/get-privacy-view";
import { parseRowId } from "@/lib/request/input-schemas";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { CountsTable, ErasedPaymentsTable } from "../../privacy-tables.client";
import { RefreshWhile } from "./refresh-while.client";

export const metadata: Metadata = { title: "Erasure" };
export const dynamic = "force-dynamic";

const STATE: Record<string, string> = {
  queued: "queued: waiting for a worker",
  running: "running",
  done: "done: the subject is erased",
  failed: "failed: its job is retried; rerunning it finishes what is left",
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
          <dt>Named by</dt>
          <dd>{erasure.subjectKind}</dd>
          <dt>Identifier&apos;s keyed hash</dt>
          <dd className="mono">{erasure.subjectHash}</dd>
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
          The redacted bodies can no longer be verified against the gateways&apos; signatures; each keeps the original&apos;s SHA-256 and
          when its signature was verified.
        </p>
      </section>
      <CountsTable label="Changed, per table and archive" counts={erasure.counts} empty="Nothing changed yet." />
      <ErasedPaymentsTable label="Payments erased" payments={erasure.payments} />
      <p>
        <Link href="/privacy">All erasures</Link>
      </p>
    </>
  );
}
