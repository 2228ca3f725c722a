import type { Queryable } from "../db/pool";
import type { AlertKind } from "./send-alert";

/** An alert as the console shows it. */
export type AlertRow = { id: number; at: Date; kind: AlertKind; provider: string; text: string; delivered: boolean; error: string | null };

/** The most recent alerts (they are audit rows), newest first. */
export async function listAlerts(db: Queryable, limit = 100): Promise<AlertRow[]> {
  const { rows } = await db.query<AlertRow>(
    `SELECT id, at, details->>'kind' AS kind, details->>'provider' AS provider, details->>'text' AS text,
            COALESCE((details->>'delivered')::boolean, false) AS delivered, details->>'error' AS error
       FROM audit_log WHERE action = 'alert' ORDER BY at DESC, id DESC LIMIT $1`,
    [limit],
  );
  return rows;
}
