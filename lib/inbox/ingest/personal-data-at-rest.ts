import { sha256Hex } from "../../crypto/digest";
import { REDACTED, identifierHash, personalValues, redactPayload, subjectCandidates } from "../../providers/personal-data";
import type { ProviderDriver } from "../../providers/types";
import { jsonbText, type NormalizedColumns } from "./normalize-event";

// What of a verified delivery is stored about its person. As it came (PII_AT_REST=keep), unless its
// customer was erased (a later refund of an erased subject): then, and always with
// PII_AT_REST=redact, the body is stored with the driver's personal-data paths redacted, the raw
// bytes are that redacted JSON, and the row keeps the original's SHA-256 and when it was verified.
// Whether an identifier was erased is asked by the statement that stores the event (its keyed
// hashes against erased_identifiers, store-event.ts), so an erasure committed before that statement
// always counts, and a batch of deliveries asks once. So is whether the delivery's payment belongs
// to an erased customer (its customer is REDACTED): a later event on it may name the person by an
// identifier the erasure never saw (an e-mail changed at the gateway since), and every identifier it
// carries is then redacted, wherever in the body.

export type RedactedAtRest = { originalSha256: string; verifiedAt: Date };

export type KeptBody = { columns: NormalizedColumns; rawBody: Buffer; redaction: RedactedAtRest | null };

export type PersonalDataOptions = { driver: ProviderDriver; piiAtRest: "keep" | "redact"; hashKey: string | undefined; now: Date };

/** A delivery's body as it came, and what in it may name its person. */
export type DeliverySubject = {
  options: PersonalDataOptions;
  columns: NormalizedColumns;
  rawBody: Buffer;
  payload: unknown;
  /** The values that may name the subject: its customer columns and what the declared paths hold. */
  values: string[];
  /**
   * What the storing statement asks about: each value with its keyed hash (none without a hash
   * key), and ERASED_PAYMENT when the delivery names a payment.
   */
  candidates: { value: string; hash: string }[];
};

/** The candidate (value and hash alike) the storing statement reports when the delivery's payment has an erased customer. */
export const ERASED_PAYMENT = "payment-of-an-erased-customer".padEnd(64, "-");

/**
 * What of the body may name its person. `payload` is the body as the driver parsed it (parsed
 * again from the columns when not given); null when there is no readable body to keep or redact.
 */
export function deliverySubject(
  options: PersonalDataOptions,
  columns: NormalizedColumns,
  rawBody: Buffer,
  payload?: unknown,
): DeliverySubject | null {
  if (columns.payload === null) return null;
  const body: unknown = payload === undefined ? JSON.parse(columns.payload) : payload;
  const { hashKey } = options;
  const values = subjectCandidates(columns, personalValues(body, options.driver.personalData));
  const candidates = [
    ...(hashKey ? values.map((value) => ({ value, hash: identifierHash(hashKey, value) })) : []),
    ...(columns.resourceId === null ? [] : [{ value: ERASED_PAYMENT, hash: ERASED_PAYMENT }]),
  ];
  return { options, columns, rawBody, payload: body, values, candidates };
}

/**
 * The body to store, given which of the subject's candidates an erasure removed. One is enough: a
 * delivery naming an erased key (or an erased customer's payment) is that person's, so every
 * identifier it carries is theirs and redacted, a new customer id beside their CPF included.
 */
export function keptBody(subject: DeliverySubject, candidates: readonly string[]): KeptBody {
  const { options, columns, rawBody } = subject;
  if (candidates.length === 0 && options.piiAtRest === "keep") return { columns, rawBody, redaction: null };
  const erased = candidates.length > 0 ? subject.values : [];
  const redacted = jsonbText(redactPayload(subject.payload, { paths: options.driver.personalData, identifiers: erased }).value)!;
  const erasedCustomer = (value: string | null) => (value !== null && erased.includes(value) ? REDACTED : value);
  return {
    columns: {
      ...columns,
      payload: redacted,
      customerId: erasedCustomer(columns.customerId),
      // An e-mail is personal data whichever way the deployment stores bodies; the customer id is the search key.
      customerEmail: columns.customerEmail === null ? null : REDACTED,
    },
    rawBody: Buffer.from(redacted),
    redaction: { originalSha256: sha256Hex(rawBody), verifiedAt: options.now },
  };
}
