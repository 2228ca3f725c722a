import { REDACTED } from "../canonical/redacted";
import { maskEmail } from "./mask-pii";

export type ShownCustomer = { customerShown: string | null; customerRef: string | null };

/**
 * A customer e-mail as a role may see it: shown masked or not, and the reference the console links
 * to (the customer page) only for roles that see it unmasked, so no PII lands in their URLs. An
 * erased customer is shown as such and links nowhere: every erased payment shares that value, and
 * a page of "their" payments would be everyone's.
 */
export function shownCustomer(email: string | null, unmasked: boolean): ShownCustomer {
  if (!email) return { customerShown: null, customerRef: null };
  if (email === REDACTED) return { customerShown: REDACTED, customerRef: null };
  return unmasked ? { customerShown: email, customerRef: email } : { customerShown: maskEmail(email), customerRef: null };
}
