"use server";

import { z } from "zod";
import { runAction, type ActionResult } from "@/app/_server/action";
import {
  createDestination as createDestinationRecord,
  destinationInputSchema,
  rotateDestinationSecret as rotateSecret,
  setDestinationEnabled as setEnabled,
  updateDestination as updateDestinationRecord,
} from "@/lib/destinations/manage-destinations";
import { resendDeliveries as resend, resendSchema } from "@/lib/destinations/resend-deliveries";
import { sendTestMessage as sendTest } from "@/lib/destinations/send-test-message";
import { webRuntime } from "@/lib/runtime/web-runtime";

const idSchema = z.object({ id: z.number().int().positive() });

/** Adds a destination; its secret is returned this once. */
export async function createDestination(input: unknown): Promise<ActionResult<{ id: number; secret: string }>> {
  return runAction("createDestination", destinationInputSchema, input, async (parsed, { user, ip }) => {
    const { pool, config } = webRuntime();
    const { destination, secret } = await createDestinationRecord(
      pool,
      parsed,
      { actor: user.email, ip },
      config.destinations.allowedHosts,
    );
    return { id: destination.id, secret };
  });
}

export async function updateDestination(input: unknown): Promise<ActionResult<{ id: number }>> {
  return runAction("updateDestination", destinationInputSchema.extend(idSchema.shape), input, async ({ id, ...parsed }, { user, ip }) => {
    const { pool, config } = webRuntime();
    await updateDestinationRecord(pool, id, parsed, { actor: user.email, ip }, config.destinations.allowedHosts);
    return { id };
  });
}

export async function setDestinationEnabled(input: unknown): Promise<ActionResult<{ enabled: boolean }>> {
  return runAction("setDestinationEnabled", idSchema.extend({ enabled: z.boolean() }), input, async ({ id, enabled }, { user, ip }) => {
    await setEnabled(webRuntime().pool, id, enabled, { actor: user.email, ip });
    return { enabled };
  });
}

/** A new secret, returned this once; the old one keeps signing for the overlap. */
export async function rotateDestinationSecret(input: unknown): Promise<ActionResult<{ secret: string; overlapHours: number }>> {
  return runAction("rotateDestinationSecret", idSchema, input, async ({ id }, { user, ip }) => {
    const { pool, config } = webRuntime();
    const overlapHours = config.destinations.secretOverlapHours;
    return { secret: await rotateSecret(pool, id, overlapHours, { actor: user.email, ip }), overlapHours };
  });
}

export async function resendDeliveries(input: unknown): Promise<ActionResult<{ resent: number }>> {
  return runAction("resendDeliveries", resendSchema, input, async (parsed, { user, ip }) => ({
    resent: await resend(webRuntime().pool, parsed, { actor: user.email, ip }),
  }));
}

export async function sendTestMessage(
  input: unknown,
): Promise<ActionResult<{ statusCode: number | null; latencyMs: number; error: string | null }>> {
  return runAction("sendTestMessage", idSchema, input, async ({ id }, { user, ip }) => {
    const { pool, config } = webRuntime();
    const result = await sendTest(pool, config.destinations, id, { actor: user.email, ip });
    if (!result) return { statusCode: null, latencyMs: 0, error: "no such destination" };
    return { statusCode: result.statusCode, latencyMs: result.latencyMs, error: result.error };
  });
}
