import type { Metadata } from "next";
import { requirePageAccess } from "@/app/_server/session";
import { getSignaturesView } from "@/lib/console/get-signatures-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { RejectedWebhooksTable } from "./rejected-webhooks-table.client";
import { SignatureDebugger } from "./signature-debugger.client";
import { parseRowId } from "@/lib/request/input-schemas";

export const metadata: Metadata = { title: "Signatures" };
export const dynamic = "force-dynamic";

export default async function SignaturesPage({ searchParams }: { searchParams: Promise<{ failure?: string }> }) {
  await requirePageAccess("/signatures");
  const view = await getSignaturesView(webRuntime().pool, parseRowId((await searchParams).failure));
  return (
    <>
      <h1>Signature debugger</h1>
      <p className="muted">
        Paste what a sender sent and the secret you configured: the debugger says whether the secret, the encoding, the algorithm, the
        signed content or the timestamp is wrong. Nothing you paste is stored.
      </p>
      <SignatureDebugger key={view.failureId ?? "new"} schemes={view.schemes} prefill={view.prefill} />
      <h2>Recent rejected webhooks</h2>
      <RejectedWebhooksTable rows={view.failures} />
    </>
  );
}
