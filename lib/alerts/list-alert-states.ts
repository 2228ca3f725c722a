import type { AppConfig } from "../config/env";
import type { Pool } from "../db/pool";
import { listGoneDestinations } from "../destinations/deliver-changes";
import { destinationGoneAlert, findAlerts, findWorkerDownAlert } from "./check-alerts";
import { listAlerts, type AlertRow } from "./list-alerts";

/** An alert sent, and whether its condition still holds now. */
export type AlertStateRow = AlertRow & { state: "active" | "resolved" };

/**
 * The alerts sent, newest first, each marked active while the database still shows its condition
 * (same kind, same provider) and resolved once it no longer does. A circuit's state lives in the
 * worker that opened it: its alert counts as resolved once the cooldown has passed. A destination
 * gone (410) stays active while it is still switched off for that.
 */
export async function listAlertStates(deps: { pool: Pool; config: AppConfig }): Promise<AlertStateRow[]> {
  const [alerts, current, workerDown, gone] = await Promise.all([
    listAlerts(deps.pool),
    findAlerts(deps),
    findWorkerDownAlert(deps),
    listGoneDestinations(deps.pool),
  ]);
  const active = new Set(
    [...current, ...(workerDown ? [workerDown] : []), ...gone.map(destinationGoneAlert)].map((alert) => `${alert.kind}/${alert.provider}`),
  );
  const cooldownMs = deps.config.refetch.breakerCooldownSeconds * 1000;
  return alerts.map((alert) => {
    const holds =
      alert.kind === "circuit_open"
        ? new Date(alert.at).getTime() + cooldownMs > Date.now()
        : active.has(`${alert.kind}/${alert.provider}`);
    return { ...alert, state: holds ? "active" : "resolved" };
  });
}
