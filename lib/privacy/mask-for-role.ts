import { can, type Role } from "../auth/permissions";
import type { AttemptRow, EventDetail } from "../inbox/queries/get-event";
import type { EventListRow } from "../inbox/queries/list-events";
import type { PaymentRecord } from "../payments/get-payment";
import { MASKED, maskEmail, maskPayload } from "./mask-pii";

// The one place that turns stored rows into what a role may see. Roles with `payload.unmasked` get
// the data as stored; a viewer gets the allow-listed fields (lib/privacy/mask-pii.ts): masked e-mail,
// no customer id, no raw bytes, and errors only as a category (their text may quote the body).

/** Headers whose values say nothing about a customer. */
const SAFE_HEADERS = new Set(["content-type", "user-agent", "webhook-id", "webhook-timestamp", "x-request-id"]);

const ERROR_CATEGORIES: [RegExp, string][] = [
  [
    /not valid JSON|not an? .* event|notification|nests deeper|normalized event invalid|out of range|NUL character|surrogate|is not ISO|not a date|data\.object|is not a/i,
    "the body could not be read",
  ],
  [/not registered/i, "the payment is not registered yet"],
  [/circuit|refetch|gateway|timed? ?out|HTTP \d{3}|fetch|ECONN|status \d{3}/i, "the gateway could not be reached or refused"],
  [/gave up|attempts|worker stopped|superseded/i, "processing was interrupted"],
];

/** A stored error as a viewer may see it: its category, never its text. */
export function errorCategory(error: string | null): string | null {
  if (error === null) return null;
  return ERROR_CATEGORIES.find(([pattern]) => pattern.test(error))?.[1] ?? "processing error";
}

const maskedEmail = (email: string | null) => (email === null ? null : maskEmail(email));
const maskedValue = (value: string | null) => (value === null ? null : MASKED);

export type MaskedEvent = Omit<EventDetail, "rawBody"> & { rawBody: Buffer | null; masked: boolean };

/** One event as `role` may see it; rawBody is null when the role may not see the bytes. */
export function maskEvent(role: Role, event: EventDetail): MaskedEvent {
  if (can(role, "payload.unmasked")) return { ...event, masked: false };
  return {
    ...event,
    masked: true,
    customerEmail: maskedEmail(event.customerEmail),
    customerId: maskedValue(event.customerId),
    payload: event.payload === null ? null : maskPayload(event.payload),
    rawBody: null,
    headers: Object.fromEntries(Object.entries(event.headers).map(([name, value]) => [name, SAFE_HEADERS.has(name) ? value : MASKED])),
    queryString: maskedValue(event.queryString),
    lastError: errorCategory(event.lastError),
    // The digest of bytes the role may not see is theirs no more than the bytes.
    redaction: event.redaction && { ...event.redaction, originalSha256: null },
  };
}

export function maskAttempts(role: Role, attempts: AttemptRow[]): AttemptRow[] {
  if (can(role, "payload.unmasked")) return attempts;
  return attempts.map((attempt) => ({ ...attempt, error: errorCategory(attempt.error) }));
}

/** A row of the events explorer as `role` may see it. */
export function maskEventRow<Row extends Pick<EventListRow, "customerEmail" | "lastError">>(role: Role, row: Row): Row {
  if (can(role, "payload.unmasked")) return row;
  return { ...row, customerEmail: maskedEmail(row.customerEmail), lastError: errorCategory(row.lastError) };
}

/** A payment as `role` may see it. */
export function maskPayment<Payment extends Pick<PaymentRecord, "customerEmail" | "customerId">>(role: Role, payment: Payment): Payment {
  if (can(role, "payload.unmasked")) return payment;
  return { ...payment, customerEmail: maskedEmail(payment.customerEmail), customerId: maskedValue(payment.customerId) };
}

export const SEARCH_NEEDS_SUPPORT =
  "Searching by a customer or by a payload value needs the support role (a search that finds something would confirm a masked value); event and charge ids can be searched.";

export const EMAIL_SEARCH_NEEDS_SUPPORT =
  "Viewers may not search by e-mail: a search that found one would confirm an address the page masks. Search by an event or charge id (any part of it) or an amount, or ask support.";

/**
 * Why `role` may not run this search, or null when it may. Customer, e-mail and payload path
 * searches would let a viewer confirm a value the page masks; for such a role the free search
 * matches ids only, so a term with an "@" could only ever find nothing, and is refused in words.
 */
export function searchRefusal(
  role: Role,
  search: { jsonPath?: string; jsonValue?: string; customer?: string; search?: string },
): string | null {
  if (can(role, "payload.unmasked")) return null;
  if (search.jsonPath || search.jsonValue !== undefined || search.customer) return SEARCH_NEEDS_SUPPORT;
  return search.search?.includes("@") ? EMAIL_SEARCH_NEEDS_SUPPORT : null;
}

/** Does `role`'s free search match ids only (event and charge ids are not personal data)? */
export function searchesIdsOnly(role: Role): boolean {
  return !can(role, "payload.unmasked");
}
