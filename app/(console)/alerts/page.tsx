import type { Metadata } from "next";
import { requirePageAccess } from "@/app/_server/session";
import { getAlertsView } from "@/lib/console/get-alerts-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { AlertsTable } from "./alerts-table.client";

export const metadata: Metadata = { title: "Alerts" };
export const dynamic = "force-dynamic";

export default async function AlertsPage() {
  await requirePageAccess("/alerts");
  const { pool, config } = webRuntime();
  const view = await getAlertsView(pool, config);
  return (
    <>
      <h1>Alerts</h1>
      <p className="muted">
        Failed events, ignored-ratio jumps, a stale pending backlog, open refetch circuits, no worker alive, a provider silent for longer
        than usual, dead deliveries and destinations gone (410); at most one per kind and provider every {view.windowMinutes} min. An alert
        is active while its condition still holds, resolved once it no longer does.{" "}
        {view.posted ? "Each is posted to the alert webhook." : "ALERT_WEBHOOK_URL is not set: alerts are only listed here."}
      </p>
      <AlertsTable alerts={view.alerts} />
    </>
  );
}
