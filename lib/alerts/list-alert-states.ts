import type { AppConfig } from "../config/env";
import type { Pool } from "../db/pool";
import { findAlerts, findWorkerDownAlert } from "./check-alerts";
import { listAlerts, type AlertView } from "./list-alerts";

/** An alert sent, and whether its condition still holds now. */
export type AlertRowView = AlertView & { state: "active" | "resolved" };

/**
 * The alerts sent, newest first, each marked active while the database still shows its condition
 * (same kind, same provider) and resolved once it no longer does. A circuit's state lives in the
 * worker that opened it: its alert counts as resolved once the cooldown has passed.
 */
export async function listAlertStates(deps: { pool: Pool; config: AppConfig }): Promise<AlertRowView[]> {
  const [alerts, current, workerDown] = await Promise.all([listAlerts(deps.pool), findAlerts(deps), findWorkerDownAlert(deps)]);
  const active = new Set([...current, ...(workerDown ? [workerDown] : [])].map((alert) => `${alert.kind}/${alert.provider}`));
  const cooldownMs = deps.config.refetch.breakerCooldownSeconds * 1000;
  return alerts.map((alert) => {
    const holds =
      alert.kind === "circuit_open"
        ? new Date(alert.at).getTime() + cooldownMs > Date.now()
        : active.has(`${alert.kind}/${alert.provider}`);
    return { ...alert, state: holds ? "active" : "resolved" };
  });
}
