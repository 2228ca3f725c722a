import { z } from "zod";
import {
  createDestination as createDestinationRecord,
  destinationInputSchema,
  rotateDestinationSecret as rotateSecret,
  setDestinationEnabled as setEnabled,
  updateDestination as updateDestinationRecord,
} from "../destinations/manage-destinations";
import { resendDeliveries as resend, resendSchema } from "../destinations/resend-deliveries";
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

export const sendTestMessage = consoleAction(
  idSchema,
  async ({ pool, config }, { id }, { user, ip }): Promise<{ statusCode: number | null; latencyMs: number; error: string | null }> => {
    const result = await sendTest(pool, config.destinations, id, { actor: user.email, ip });
    if (!result) return { statusCode: null, latencyMs: 0, error: "no such destination" };
    return { statusCode: result.statusCode, latencyMs: result.latencyMs, error: result.error };
  },
);
