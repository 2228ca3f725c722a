// What a viewer sees of a payload: an allow-list. Only values known to be safe show (ids of events
// and charges, types, statuses, amounts, currencies, dates) and e-mails masked; every other value is
// masked, whatever the gateway calls its field. Keys stay visible, so the shape can be read.

export const MASKED = "***";

/** Objects whose ids and facts are the event's or the charge's own (a customer's, a card's are not). */
const SAFE_CONTAINERS = new Set([
  "",
  "data",
  "object",
  "payload",
  "payment",
  "charge",
  "charges",
  "last_transaction",
  "transaction",
  "refund",
  "refunds",
  "dispute",
  "disputes",
]);

const SAFE_KEY_RULES: RegExp[] = [
  // ids of events and charges
  /^(id|charge|payment_id|payment_intent|transaction_id|order_id|dispute|refund|balance_transaction|resource)$/,
  // types
  /^(object|type|event|action|api_version|billingType|payment_method_type)$/,
  // statuses
  /^(status|paid|refunded|captured|disputed|livemode|live_mode|deleted|voided)$|_status$/,
  // amounts and currencies
  /^(amount|value|netValue|total|fee|currency)$|^amount_|_amount$|Amount$/,
  // dates (of the event and the charge)
  /^(created|updated|date|timestamp|dateCreated|dueDate|paymentDate|date_created|date_approved|date_last_updated)$|(_at|At)$/,
];

/** Dates of a person, not of the event: never on the list, whatever their suffix. */
const PERSONAL_KEY = /birth|born/i;

const EMAIL_KEY = /e-?mail/i;

// A safe value is short, plain text with no @ and no run of 11+ digits (card numbers, CPF, CNPJ and
// phone numbers have them; ids, amounts, Unix times and ISO dates don't).
const SAFE_TEXT = /^[A-Za-z0-9_.:+\- ]{0,80}$/;
const LONG_DIGIT_RUN = /\d{11,}/;

function isSafeScalar(value: unknown): boolean {
  if (value === null || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value) && !LONG_DIGIT_RUN.test(String(value));
  return typeof value === "string" && SAFE_TEXT.test(value) && !LONG_DIGIT_RUN.test(value);
}

/** "ana@example.com" -> "a***@e***" (code points, so a non-ASCII address masks the same way). */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at < 0) return MASKED;
  const first = (text: string) => Array.from(text)[0] ?? "";
  return `${first(email.slice(0, at))}***@${first(email.slice(at + 1))}***`;
}

/**
 * A copy of a JSON value as a viewer may see it. Walks with an explicit stack (payloads were depth-
 * capped at ingest, but this must not be what overflows on an old row).
 */
export function maskPayload(value: unknown): unknown {
  type Frame = { source: unknown; key: string; safeContainer: boolean; assign: (masked: unknown) => void };
  let result: unknown;
  const stack: Frame[] = [{ source: value, key: "", safeContainer: true, assign: (masked) => (result = masked) }];
  while (stack.length > 0) {
    const { source, key, safeContainer, assign } = stack.pop()!;
    if (Array.isArray(source)) {
      const copy: unknown[] = new Array(source.length);
      assign(copy);
      // An array's items live in their container's place (charges: [...] is a list of charges).
      source.forEach((item, index) => stack.push({ source: item, key, safeContainer, assign: (masked) => (copy[index] = masked) }));
    } else if (source !== null && typeof source === "object") {
      const copy: Record<string, unknown> = {};
      assign(copy);
      const inside = safeContainer && SAFE_CONTAINERS.has(key);
      for (const [childKey, child] of Object.entries(source)) {
        stack.push({ source: child, key: childKey, safeContainer: inside, assign: (masked) => (copy[childKey] = masked) });
      }
    } else if (typeof source === "string" && EMAIL_KEY.test(key) && source.includes("@")) {
      assign(maskEmail(source));
    } else {
      const safe = safeContainer && SAFE_KEY_RULES.some((rule) => rule.test(key)) && !PERSONAL_KEY.test(key) && isSafeScalar(source);
      assign(safe || source === null ? source : MASKED);
    }
  }
  return result;
}
