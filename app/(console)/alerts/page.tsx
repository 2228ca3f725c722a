import type { Metadata } from "next";
import { requirePagePermission } from "@/app/_server/session";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { listAlertStates } from "@/lib/alerts/list-alert-states";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { AlertsTable } from "./alerts-table.client";

export const metadata: Metadata = { title: "Alerts" };
export const dynamic = "force-dynamic";

export default async function AlertsPage() {
  await requirePagePermission(PAGE_ACCESS["/alerts"]);
  const { pool, config } = webRuntime();
  const alerts = await listAlertStates({ pool, config });
  return (
    <>
      <h1>Alerts</h1>
      <p className="muted">
        Failed events, ignored-ratio jumps, a stale pending backlog, open refetch circuits, no worker alive, a provider silent for longer
        than usual, dead deliveries and destinations gone (410); at most one per kind and provider every {config.alerts.windowMinutes} min.
        An alert is active while its condition still holds, resolved once it no longer does.{" "}
        {config.alerts.webhookUrl ? "Each is posted to the alert webhook." : "ALERT_WEBHOOK_URL is not set: alerts are only listed here."}
      </p>
      <AlertsTable alerts={alerts} />
    </>
  );
}
