import { recordAudit } from "../audit/record-audit";
import type { AppConfig } from "../config/env";
import { withTransaction, type Pool } from "../db/pool";

export const ALERT_KINDS = [
  "event_failed",
  "ignored_spike",
  "pending_stale",
  "circuit_open",
  "delivery_dead",
  "destination_gone",
  "destination_failing",
  "worker_down",
  "provider_silent",
  "partition_strays",
  "reconcile_missed",
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export type Alert = { kind: AlertKind; provider: string; text: string };

export type AlertDeps = { pool: Pool; config: AppConfig };

export type AlertOutcome =
  { sent: false; reason: "rate_limited" } | { sent: true; delivered: true } | { sent: true; delivered: false; error: string };

export const ALERT_ACTOR = "system:alerts";
const DELIVERY_TIMEOUT_MS = 5000;

// The last alert of this kind for this provider within the window, if any (audit_log (action, at) index).
const RECENT_ALERT = `
  SELECT 1 FROM audit_log
   WHERE action = 'alert' AND at > now() - make_interval(mins => $1)
     AND details->>'kind' = $2 AND details->>'provider' = $3
   LIMIT 1`;

async function deliver(url: string | undefined, text: string): Promise<{ delivered: true } | { delivered: false; error: string }> {
  if (!url) return { delivered: false, error: "ALERT_WEBHOOK_URL is not set" };
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text }),
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    await response.body?.cancel();
    return response.ok ? { delivered: true } : { delivered: false, error: `the alert webhook answered ${response.status}` };
  } catch (error) {
    return { delivered: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Posts `{"text": ...}` (Slack-compatible) to ALERT_WEBHOOK_URL, at most once per kind per provider
 * per ALERT_WINDOW_MINUTES across every process (a transaction-scoped advisory lock serializes the
 * check and the record), and records each alert sent in the audit log, delivered or not.
 */
export async function sendAlert(deps: AlertDeps, alert: Alert): Promise<AlertOutcome> {
  return withTransaction(deps.pool, async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`alert:${alert.kind}:${alert.provider}`]);
    const recent = await tx.query(RECENT_ALERT, [deps.config.alerts.windowMinutes, alert.kind, alert.provider]);
    if (recent.rowCount) return { sent: false, reason: "rate_limited" } as const;
    const result = await deliver(deps.config.alerts.webhookUrl, alert.text);
    await recordAudit(tx, {
      actor: ALERT_ACTOR,
      action: "alert",
      details: { ...alert, delivered: result.delivered, ...(result.delivered ? {} : { error: result.error }) },
    });
    return { sent: true, ...result };
  });
}
