import type { DeclineReason } from "../canonical/charge-event";

// A refusal in words, for support: the gateway's message when it gave one, else its code made
// readable ("cc_rejected_insufficient_amount" -> "cc rejected insufficient amount"), then the code
// itself, which is what the gateway's and the issuer's own tables list. React escapes what it shows;
// the text is the gateway's, already bounded by the drivers.

/** "Declined: Your card has insufficient funds. (code insufficient_funds)", or null when none is known. */
export function declineSentence(reason: DeclineReason | null | undefined): string | null {
  if (!reason || (!reason.code && !reason.message)) return null;
  const words = reason.message ?? reason.code!.replace(/[_-]+/g, " ");
  return `Declined: ${words}${reason.code ? ` (code ${reason.code})` : ""}`;
}
