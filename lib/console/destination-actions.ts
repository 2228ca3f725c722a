import { z } from "zod";
import {
  createDestination as createDestinationRecord,
  destinationInputSchema,
  rotateDestinationSecret as rotateSecret,
  setDestinationEnabled as setEnabled,
  setDestinationPaused as setPaused,
  updateDestination as updateDestinationRecord,
} from "../destinations/manage-destinations";
import { previewRecovery as preview, recoverSchema, recoverSince } from "../destinations/recover-changes";
import { countResendable as countResend, resendDeliveries as resend, resendSchema } from "../destinations/resend-deliveries";
import { retryNow, retryNowSchema } from "../destinations/retry-deliveries";
import { sendTestMessage as sendTest } from "../destinations/send-test-message";
import { consoleAction } from "./console-action";

const idSchema = z.object({ id: z.number().int().positive() });

/** Adds a destination; its secret is returned this once. */
export const createDestination = consoleAction(destinationInputSchema, async ({ pool, config }, input, { user, ip }) => {
  const { destination, secret } = await createDestinationRecord(pool, input, { actor: user.email, ip }, config.destinations.allowedHosts);
  return { id: destination.id, secret };
});

export const updateDestination = consoleAction(
  destinationInputSchema.extend(idSchema.shape),
  async ({ pool, config }, { id, ...input }, { user, ip }) => {
    await updateDestinationRecord(pool, id, input, { actor: user.email, ip }, config.destinations.allowedHosts);
    return { id };
  },
);

export const setDestinationEnabled = consoleAction(
  idSchema.extend({ enabled: z.boolean() }),
  async ({ pool }, { id, enabled }, { user, ip }) => {
    await setEnabled(pool, id, enabled, { actor: user.email, ip });
    return { enabled };
  },
);

/** A new secret, returned this once; the old one keeps signing for the overlap. */
export const rotateDestinationSecret = consoleAction(idSchema, async ({ pool, config }, { id }, { user, ip }) => {
  const overlapHours = config.destinations.secretOverlapHours;
  return { secret: await rotateSecret(pool, id, overlapHours, { actor: user.email, ip }), overlapHours };
});

export const resendDeliveries = consoleAction(resendSchema, async ({ pool }, input, { user, ip }) => ({
  resent: await resend(pool, input, { actor: user.email, ip }),
}));

/** How many deliveries a bulk resend would send again, shown before it is confirmed. */
export const countResendable = consoleAction(resendSchema, async ({ pool }, input) => ({ count: await countResend(pool, input) }));

/** Retry now: one pending delivery, or the destination's queue, without waiting (an open circuit probes now). */
export const retryDeliveries = consoleAction(retryNowSchema, async ({ pool }, input, { user, ip }) =>
  retryNow(pool, input, { actor: user.email, ip }),
);

export const setDestinationPaused = consoleAction(
  idSchema.extend({ paused: z.boolean() }),
  async ({ pool }, { id, paused }, { user, ip }) => {
    await setPaused(pool, id, paused, { actor: user.email, ip });
    return { paused };
  },
);

/** What recovering since T would queue, resend and leave pending, shown before it is confirmed. */
export const previewRecovery = consoleAction(recoverSchema, async ({ pool }, input) => preview(pool, input));

/** Recover since T: every change committed since then that the destination takes goes again. */
export const recoverChanges = consoleAction(recoverSchema, async ({ pool }, input, { user, ip }) =>
  recoverSince(pool, input, { actor: user.email, ip }),
);

export const sendTestMessage = consoleAction(
  idSchema,
  async ({ pool, config }, { id }, { user, ip }): Promise<{ statusCode: number | null; latencyMs: number; error: string | null }> => {
    const result = await sendTest(pool, config.destinations, id, { actor: user.email, ip });
    if (!result) return { statusCode: null, latencyMs: 0, error: "no such destination" };
    return { statusCode: result.statusCode, latencyMs: result.latencyMs, error: result.error };
  },
);
