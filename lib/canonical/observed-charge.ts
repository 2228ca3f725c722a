import { z } from "zod";
import { chargeSnapshotSchema } from "./charge-event";

// What reconciliation stores as the body of an event it derives from a gateway's API (a listed or
// refetched charge whose state differs from ours): the state it saw, when, and the gateway's own
// object. The worker applies it like a refetch (fetched from the authenticated API, so trusted);
// the ledger records it with source "reconcile".

export const observedChargeSchema = z.object({
  kind: z.literal("observed_charge"),
  resourceId: z.string().min(1).max(150),
  /** How it was seen: in a page of the gateway's list API, or by a refetch of a stuck payment. */
  via: z.enum(["list", "refetch"]),
  /** When the request that saw it started (ISO-8601, milliseconds): the time this state held. */
  observedAt: z.iso.datetime({ offset: true }),
  /** The gateway's own status word, for the console. */
  gatewayStatus: z.string().max(80),
  snapshot: chargeSnapshotSchema,
  /** The gateway's object as its API returned it (absent for a refetch, which maps as it reads). */
  resource: z.unknown().optional(),
});
export type ObservedCharge = z.infer<typeof observedChargeSchema>;

/** The event type of a derived reconciliation event: the canonical status it brings, e.g. reconcile.paid. */
export function observedChargeType(observed: Pick<ObservedCharge, "snapshot">): string {
  return `reconcile.${observed.snapshot.status}`;
}
