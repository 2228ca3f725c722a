import { randomUUID } from "node:crypto";
import { recordAudit } from "../audit/record-audit";
import type { Queryable } from "../db/pool";
import type { DestinationsConfig } from "./deliver-changes";
import type { Actor } from "./manage-destinations";
import { postMessage, type PostResult } from "./post-message";
import { signedHeaders } from "./sign-message";

/**
 * Sends a signed `destination.test` message to a destination now (not queued, not retried), so an
 * admin can see the host verify it; returns what the host answered. Audited with that answer: a
 * request to a URL of the admin's choosing, from the server's network.
 */
export async function sendTestMessage(
  db: Queryable,
  config: DestinationsConfig,
  destinationId: number,
  by: Actor,
): Promise<PostResult | null> {
  const { rows } = await db.query<{ url: string; secret: string; previous_secret: string | null }>(
    `SELECT url, secret, CASE WHEN previous_secret_until > now() THEN previous_secret END AS previous_secret FROM destinations WHERE id = $1`,
    [destinationId],
  );
  const destination = rows[0];
  if (!destination) return null;
  const id = `test_${randomUUID()}`;
  const body = JSON.stringify({ type: "destination.test", timestamp: new Date().toISOString(), data: { id } });
  const secrets = destination.previous_secret ? [destination.secret, destination.previous_secret] : [destination.secret];
  const result = await postMessage(destination.url, body, signedHeaders(id, body, secrets), config);
  await recordAudit(db, {
    ...by,
    action: "destination_tested",
    details: { destinationId, statusCode: result.statusCode, error: result.error },
  });
  return result;
}
