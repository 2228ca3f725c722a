import { listAlertStates, type AlertStateRow } from "../alerts/list-alert-states";
import type { AppConfig } from "../config/env";
import type { Pool } from "../db/pool";

export type AlertsView = {
  alerts: AlertStateRow[];
  /** At most one alert per kind and provider in this many minutes. */
  windowMinutes: number;
  /** Alerts are posted to ALERT_WEBHOOK_URL as well as listed. */
  posted: boolean;
};

/** The alerts page: every alert sent, active or resolved, and how alerts go out. */
export async function getAlertsView(pool: Pool, config: AppConfig): Promise<AlertsView> {
  return {
    alerts: await listAlertStates({ pool, config }),
    windowMinutes: config.alerts.windowMinutes,
    posted: Boolean(config.alerts.webhookUrl),
  };
}
