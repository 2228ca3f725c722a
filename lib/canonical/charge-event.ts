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

/** How long a decline's code and message may be: a gateway's text, kept bounded wherever it is shown. */
export const DECLINE_CODE_MAX = 64;
export const DECLINE_MESSAGE_MAX = 300;

/**
 * Why the gateway (or the issuer behind it) refused the charge, in its own words: a code and a
 * message, either possibly absent. Not personal data (it describes the refusal, not the payer).
 */
export const declineReasonSchema = z.object({
  code: z.string().min(1).max(DECLINE_CODE_MAX).optional(),
  message: z.string().min(1).max(DECLINE_MESSAGE_MAX).optional(),
});
export type DeclineReason = z.infer<typeof declineReasonSchema>;

/** Trimmed, controls out, cut to `max` characters; undefined when nothing is left. */
function bounded(text: string | null | undefined, max: number): string | undefined {
  const clean = text?.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  if (!clean) return undefined;
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** A decline reason from a gateway's fields (a number code as text), bounded; undefined when both are empty. */
export function declineReason(code: string | number | null | undefined, message: string | null | undefined): DeclineReason | undefined {
  const reason = {
    code: bounded(code === null || code === undefined ? undefined : String(code), DECLINE_CODE_MAX),
    message: bounded(message, DECLINE_MESSAGE_MAX),
  };
  if (!reason.code && !reason.message) return undefined;
  return { ...(reason.code ? { code: reason.code } : {}), ...(reason.message ? { message: reason.message } : {}) };
}

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
  /** Why the charge was refused, when the observation says (a failed charge, or a refused attempt on a pending one). */
  declineReason: declineReasonSchema.optional(),
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
