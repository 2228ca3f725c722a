import type { Metadata } from "next";
import Link from "next/link";
import { requirePageAccess } from "@/app/_server/session";
import { getReconciliationView } from "@/lib/console/get-reconciliation-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { ReconcileForm } from "./reconcile-form.client";
import { RunsTable } from "./runs-table.client";

export const metadata: Metadata = { title: "Reconciliation" };
export const dynamic = "force-dynamic";

export default async function ReconciliationPage() {
  await requirePageAccess("/reconciliation");
  const { pool, config, accounts } = webRuntime();
  const view = await getReconciliationView(pool, config, accounts());
  return (
    <>
      <h1>Reconciliation</h1>
      <p className="muted">
        Each gateway&apos;s list API compared with the inbox: events it never sent are ingested under their own key (a late webhook is then
        a duplicate), payments whose state differs from the gateway&apos;s are repaired through derived events, and payments stuck in a
        non-final state are refetched. Each gateway account is listed with its own credentials from its own cursor (leave Account empty for
        the default one). See <Link href="/docs/reconciliation">docs/reconciliation.md</Link> for what each gateway shows and cannot show.
      </p>
      <ReconcileForm providers={view.providers} />
      <RunsTable runs={view.runs} />
    </>
  );
}
