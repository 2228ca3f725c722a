import { z } from "zod";
import { recordAudit } from "../audit/record-audit";
import { PROVIDER_NAMES } from "../providers/registry";
import { withTransaction, type Pool, type Queryable } from "../db/pool";
import { AppError } from "../errors/app-error";
import { PAYMENT_STATUSES } from "../payments/state-machine";
import { destinationUrlProblem, isRefusedAddress } from "./refuse-address";
import { generateSecret } from "./sign-message";

export const destinationInputSchema = z.object({
  name: z.string().trim().min(1).max(100),
  url: z
    .url({ protocol: /^https?$/, message: "must be an http(s) URL" })
    .max(2000)
    .refine((url) => !isRefusedAddress(new URL(url).hostname), "link-local and cloud metadata addresses are refused"),
  providers: z.array(z.enum(PROVIDER_NAMES)).default([]),
  statuses: z.array(z.enum(PAYMENT_STATUSES)).default([]),
  enabled: z.boolean().default(true),
});
export type DestinationInput = z.input<typeof destinationInputSchema>;

export type Destination = {
  id: number;
  name: string;
  url: string;
  providers: string[];
  statuses: string[];
  enabled: boolean;
  disabledReason: string | null;
  fromConfig: boolean;
  breakerOpenUntil: Date | null;
  createdAt: Date;
};

const COLUMNS = `id, name, url, providers, statuses, enabled, disabled_reason AS "disabledReason", from_config AS "fromConfig",
                 CASE WHEN breaker_open_until > now() THEN breaker_open_until END AS "breakerOpenUntil", created_at AS "createdAt"`;

// A new destination starts at the feed's head: it gets the changes from now on, not the history
// (the feed serves the history to whoever wants it).
const CREATE = `
  INSERT INTO destinations (name, url, providers, statuses, enabled, secret, from_config, feed_position)
  VALUES ($1, $2, $3, $4, $5, $6, $7, (SELECT last_position FROM payment_feed_head))
  RETURNING ${COLUMNS}`;

export type Actor = { actor: string; ip?: string | null };

/** The input, checked against DESTINATION_ALLOWED_HOSTS too (sending checks it again, for URLs set before the list). */
function parseDestination(input: DestinationInput, allowedHosts: readonly string[]) {
  const parsed = destinationInputSchema.parse(input);
  const problem = destinationUrlProblem(parsed.url, allowedHosts);
  if (problem) throw new AppError("BAD_REQUEST", problem);
  return parsed;
}

/** Adds a destination with a fresh secret; the secret is returned this once and never shown again. */
export async function createDestination(
  pool: Pool,
  input: DestinationInput,
  by: Actor,
  allowedHosts: readonly string[] = [],
): Promise<{ destination: Destination; secret: string }> {
  const parsed = parseDestination(input, allowedHosts);
  const secret = generateSecret();
  return withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<Destination>(CREATE, [
      parsed.name,
      parsed.url,
      parsed.providers,
      parsed.statuses,
      parsed.enabled,
      secret,
      false,
    ]);
    const destination = rows[0]!;
    await recordAudit(tx, {
      ...by,
      action: "destination_created",
      details: { destinationId: destination.id, name: parsed.name, url: parsed.url },
    });
    return { destination, secret };
  });
}

/** Changes a destination's settings; switching it on again clears why it was switched off (and its breaker). */
export async function updateDestination(
  pool: Pool,
  id: number,
  input: DestinationInput,
  by: Actor,
  allowedHosts: readonly string[] = [],
): Promise<Destination> {
  const parsed = parseDestination(input, allowedHosts);
  return withTransaction(pool, async (tx) => {
    const { rows } = await tx.query<Destination>(
      `UPDATE destinations
          SET name = $2, url = $3, providers = $4, statuses = $5, enabled = $6, updated_at = now(),
              disabled_reason = CASE WHEN $6 THEN NULL ELSE COALESCE(disabled_reason, 'switched off by ' || $7) END,
              consecutive_failures = CASE WHEN $6 AND NOT enabled THEN 0 ELSE consecutive_failures END,
              breaker_open_until = CASE WHEN $6 AND NOT enabled THEN NULL ELSE breaker_open_until END,
              breaker_opened_at = CASE WHEN $6 AND NOT enabled THEN NULL ELSE breaker_opened_at END
        WHERE id = $1 AND NOT from_config
        RETURNING ${COLUMNS}`,
      [id, parsed.name, parsed.url, parsed.providers, parsed.statuses, parsed.enabled, by.actor],
    );
    if (!rows[0]) throw new AppError("NOT_FOUND", "no such destination (the configured one is changed in its environment)");
    await recordAudit(tx, { ...by, action: "destination_updated", details: { destinationId: id, ...parsed } });
    return rows[0];
  });
}

/**
 * A new secret for a destination, returned this once. The old one keeps signing beside it for
 * DESTINATION_SECRET_OVERLAP_HOURS, so the host can switch keys without rejecting a message.
 */
export async function rotateDestinationSecret(pool: Pool, id: number, overlapHours: number, by: Actor): Promise<string> {
  const secret = generateSecret();
  return withTransaction(pool, async (tx) => {
    const { rowCount } = await tx.query(
      `UPDATE destinations
          SET previous_secret = secret, previous_secret_until = now() + make_interval(hours => $3), secret = $2, updated_at = now()
        WHERE id = $1 AND NOT from_config`,
      [id, secret, overlapHours],
    );
    if (!rowCount) throw new AppError("NOT_FOUND", "no such destination (the configured one's secret is DESTINATION_SECRET)");
    await recordAudit(tx, { ...by, action: "destination_secret_rotated", details: { destinationId: id, overlapHours } });
    return secret;
  });
}

/** Switches any destination on or off (the configured one too); on again, its breaker starts closed. */
export async function setDestinationEnabled(pool: Pool, id: number, enabled: boolean, by: Actor): Promise<void> {
  await withTransaction(pool, async (tx) => {
    const { rowCount } = await tx.query(
      `UPDATE destinations
          SET enabled = $2, updated_at = now(),
              disabled_reason = CASE WHEN $2 THEN NULL ELSE 'switched off by ' || $3 END,
              consecutive_failures = CASE WHEN $2 THEN 0 ELSE consecutive_failures END,
              breaker_open_until = CASE WHEN $2 THEN NULL ELSE breaker_open_until END,
              breaker_opened_at = CASE WHEN $2 THEN NULL ELSE breaker_opened_at END
        WHERE id = $1`,
      [id, enabled, by.actor],
    );
    if (!rowCount) throw new AppError("NOT_FOUND", "no such destination");
    await recordAudit(tx, { ...by, action: "destination_updated", details: { destinationId: id, enabled } });
  });
}

/**
 * Pauses a destination (nothing is sent; its deliveries keep queueing and wait) or resumes it; the
 * breaker keeps its state. Audited. A destination switched off can't be paused: switch it on first.
 */
export async function setDestinationPaused(pool: Pool, id: number, paused: boolean, by: Actor): Promise<void> {
  await withTransaction(pool, async (tx) => {
    const { rowCount } = await tx.query(
      `UPDATE destinations
          SET paused_at = CASE WHEN $2 THEN COALESCE(paused_at, now()) END, paused_by = CASE WHEN $2 THEN COALESCE(paused_by, $3) END,
              updated_at = now()
        WHERE id = $1 AND (enabled OR NOT $2)`,
      [id, paused, by.actor.slice(0, 320)],
    );
    if (!rowCount) throw new AppError("CONFLICT", "a destination that is switched off can't be paused: switch it on first");
    await recordAudit(tx, { ...by, action: paused ? "destination_paused" : "destination_resumed", details: { destinationId: id } });
  });
}

export async function listDestinations(db: Queryable): Promise<Destination[]> {
  return (await db.query<Destination>(`SELECT ${COLUMNS} FROM destinations ORDER BY id`)).rows;
}

export async function getDestination(db: Queryable, id: number): Promise<Destination | null> {
  return (await db.query<Destination>(`SELECT ${COLUMNS} FROM destinations WHERE id = $1`, [id])).rows[0] ?? null;
}

/**
 * Makes the configured destination (DESTINATION_URL, DESTINATION_SECRET) match the environment: created
 * at the feed's head the first time, its URL and secret kept in step, switched off when unset.
 */
export async function syncConfiguredDestination(pool: Pool, configured: { url: string; secret: string } | undefined): Promise<void> {
  if (!configured) {
    await pool.query(
      `UPDATE destinations SET enabled = false, disabled_reason = 'DESTINATION_URL is no longer set', updated_at = now() WHERE from_config AND enabled`,
    );
    return;
  }
  await pool.query(
    `INSERT INTO destinations (name, url, secret, from_config, feed_position)
     VALUES ('configured (DESTINATION_URL)', $1, $2, true, (SELECT last_position FROM payment_feed_head))
     ON CONFLICT (from_config) WHERE from_config
     DO UPDATE SET url = $1, secret = $2, updated_at = now(),
                   enabled = destinations.enabled OR destinations.disabled_reason = 'DESTINATION_URL is no longer set',
                   disabled_reason = CASE WHEN destinations.disabled_reason = 'DESTINATION_URL is no longer set' THEN NULL ELSE destinations.disabled_reason END
      WHERE destinations.url IS DISTINCT FROM $1 OR destinations.secret IS DISTINCT FROM $2 OR NOT destinations.enabled`,
    [configured.url, configured.secret],
  );
}
