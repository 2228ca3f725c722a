import type { Metadata } from "next";
import { DisplayTime } from "@/app/_components/display-time.client";
import { requirePagePermission } from "@/app/_server/session";
import { listAlerts } from "@/lib/alerts/list-alerts";
import { PAGE_ACCESS } from "@/lib/auth/access-table";
import { webRuntime } from "@/lib/runtime/web-runtime";

export const metadata: Metadata = { title: "Alerts" };
export const dynamic = "force-dynamic";

export default async function AlertsPage() {
  await requirePagePermission(PAGE_ACCESS["/alerts"]);
  const { pool, config } = webRuntime();
  const alerts = await listAlerts(pool);
  return (
    <>
      <h1>Alerts</h1>
      <p className="muted">
        Failed events, ignored-ratio jumps, a stale pending backlog and open refetch circuits; at most one per kind and provider every{" "}
        {config.alerts.windowMinutes} min.{" "}
        {config.alerts.webhookUrl ? "Each is posted to the alert webhook." : "ALERT_WEBHOOK_URL is not set: alerts are only listed here."}
      </p>
      {alerts.length === 0 ? (
        <p className="panel muted">No alerts.</p>
      ) : (
        <table className="data" aria-label="Alerts">
          <thead>
            <tr>
              <th>When</th>
              <th>Kind</th>
              <th>Provider</th>
              <th>Message</th>
              <th>Delivered</th>
            </tr>
          </thead>
          <tbody>
            {alerts.map((alert) => (
              <tr key={alert.id}>
                <td>
                  <DisplayTime value={alert.at} />
                </td>
                <td>{alert.kind}</td>
                <td>{alert.provider}</td>
                <td>{alert.text}</td>
                <td title={alert.error ?? undefined}>{alert.delivered ? "yes" : `no${alert.error ? `: ${alert.error}` : ""}`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
