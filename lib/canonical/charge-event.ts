import { z } from "zod";

// The canonical charge-event vocabulary: what drivers produce and payments consume. Neither side owns
// it, so payments never import a driver and drivers never import payments.

/** How fine the gateway's event time is; ties are only meaningful at the coarser of two precisions. */
export const PRECISIONS = ["second", "millisecond", "microsecond"] as const;
export type Precision = (typeof PRECISIONS)[number];

/**
 * The canonical charge states a driver maps its event types to: what the gateway says the payment is
 * now. (The payments domain consumes these; providers know nothing of payments.)
 */
export const CHARGE_STATUSES = [
  "pending",
  "authorized",
  "paid",
  "failed",
  "canceled",
  "partially_refunded",
  "refunded",
  "disputed",
  "charged_back",
] as const;
export type ChargeStatus = (typeof CHARGE_STATUSES)[number];

/** What one event (or one refetch) says about a charge. Amounts are in minor units. */
export const chargeSnapshotSchema = z.object({
  status: z.enum(CHARGE_STATUSES),
  amount: z.number().int().nonnegative().optional(),
  amountRefunded: z.number().int().nonnegative().optional(),
  currency: z.string().length(3).optional(),
  customerId: z.string().max(150).optional(),
  customerEmail: z.string().max(320).optional(),
  /**
   * The state comes from an object that summarizes the charge without seeing its disputes (a payment
   * intent wrapping the charge): it moves a payment forward but never reinstates a disputed one.
   */
  summary: z.boolean().optional(),
  /**
   * States the gateway documents a way back from, which this observation may follow (a deleted
   * charge restored, then paid; a cash receipt undone): a newer observation moves a payment in one of
   * them on as if it were pending, though the graph calls the state final or the step a step back.
   */
  reopens: z.array(z.enum(CHARGE_STATUSES)).optional(),
});
export type ChargeSnapshot = z.infer<typeof chargeSnapshotSchema>;

/** Where one dispute of a charge stands: still open, lost (the money went back), or closed otherwise. */
export type DisputeOutcome = "open" | "lost" | "closed";

/**
 * A charge's state once all its disputes are counted (a charge can have several over time): any lost
 * one makes it charged back, else any open one disputed; won or closed ones leave its own state.
 */
export function withDisputes(status: ChargeStatus, outcomes: readonly DisputeOutcome[]): ChargeStatus {
  if (outcomes.includes("lost")) return "charged_back";
  if (outcomes.includes("open")) return "disputed";
  return status;
}
