import { withTransaction, type Pool } from "../db/pool";

export type ProcessDeps = { pool: Pool };

/** Minimal processing: marks a pending event processed, exactly once (the row lock makes it idempotent). */
export async function processEvent(deps: ProcessDeps, inboxId: number): Promise<"processed" | "skipped"> {
  return withTransaction(deps.pool, async (client) => {
    const { rows } = await client.query<{ status: string }>(
      "SELECT status FROM webhook_inbox WHERE id = $1 FOR UPDATE",
      [inboxId],
    );
    if (rows[0]?.status !== "pending") return "skipped";
    await client.query(
      `UPDATE webhook_inbox SET status = 'processed', attempts = attempts + 1, processed_at = now() WHERE id = $1`,
      [inboxId],
    );
    return "processed";
  });
}
