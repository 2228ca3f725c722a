import { maskEmail } from "./mask-pii";

export type ShownCustomer = { customerShown: string | null; customerRef: string | null };

/**
 * A customer e-mail as a role may see it: shown masked or not, and the reference the console links
 * to (the customer page) only for roles that see it unmasked, so no PII lands in their URLs.
 */
export function shownCustomer(email: string | null, unmasked: boolean): ShownCustomer {
  if (!email) return { customerShown: null, customerRef: null };
  return unmasked ? { customerShown: email, customerRef: email } : { customerShown: maskEmail(email), customerRef: null };
}
