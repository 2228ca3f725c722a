import type { Metadata } from "next";
import { requirePagePermission } from "@/app/_server/session";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { getSignatureFailure, listSignatureFailures } from "@/lib/inbox/ingest/signature-failures";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { RejectedWebhooksTable } from "./rejected-webhooks-table.client";
import { SignatureDebugger, type DebuggerFormPrefill } from "./signature-debugger.client";
import { parseRowId } from "@/lib/request/input-schemas";
import { DEBUGGER_SCHEMES, debuggerPrefill } from "@/lib/providers/signature-debugger";

export const metadata: Metadata = { title: "Signatures" };
export const dynamic = "force-dynamic";

export default async function SignaturesPage({ searchParams }: { searchParams: Promise<{ failure?: string }> }) {
  await requirePagePermission(PAGE_ACCESS["/signatures"]);
  const { pool } = webRuntime();
  const failureId = parseRowId((await searchParams).failure);
  const [failures, failure] = await Promise.all([
    listSignatureFailures(pool, 50),
    failureId === null ? Promise.resolve(null) : getSignatureFailure(pool, failureId),
  ]);
  const prefill: DebuggerFormPrefill | null = failure
    ? {
        ...debuggerPrefill(failure.provider, failure.headers),
        payload: failure.bodyExcerpt,
        truncated: failure.bodyBytes > failure.bodyExcerpt.length,
      }
    : null;
  return (
    <>
      <h1>Signature debugger</h1>
      <p className="muted">
        Paste what a sender sent and the secret you configured: the debugger says whether the secret, the encoding, the algorithm, the
        signed content or the timestamp is wrong. Nothing you paste is stored.
      </p>
      <SignatureDebugger key={failure?.id ?? "new"} schemes={DEBUGGER_SCHEMES} prefill={prefill} />
      <h2>Recent rejected webhooks</h2>
      <RejectedWebhooksTable
        rows={failures.map(({ id, receivedAt, provider, reason, bodyBytes }) => ({ id, receivedAt, provider, reason, bodyBytes }))}
      />
    </>
  );
}
