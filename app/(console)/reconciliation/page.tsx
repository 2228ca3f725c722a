import type { Metadata } from "next";
import { requirePagePermission } from "@/app/_server/session";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { reconcilableProviders } from "@/lib/reconcile/run-due-reconciliations";
import { listRuns } from "@/lib/reconcile/reconcile-runs";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { ReconcileForm } from "./reconcile-form.client";
import { RunsTable } from "./runs-table.client";

export const metadata: Metadata = { title: "Reconciliation" };
export const dynamic = "force-dynamic";

export default async function ReconciliationPage() {
  await requirePagePermission(PAGE_ACCESS["/reconciliation"]);
  const { pool, config } = webRuntime();
  const runs = await listRuns(pool, 50);
  return (
    <>
      <h1>Reconciliation</h1>
      <p className="muted">
        Each gateway&apos;s list API compared with the inbox: events it never sent are ingested under their own key (a late webhook is then
        a duplicate), payments whose state differs from the gateway&apos;s are repaired through derived events, and payments stuck in a
        non-final state are refetched. See docs/reconciliation.md for what each gateway shows and cannot show.
      </p>
      <ReconcileForm providers={reconcilableProviders(config)} />
      <RunsTable runs={runs} />
    </>
  );
}
