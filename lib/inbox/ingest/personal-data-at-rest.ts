import { sha256Hex } from "../../crypto/digest";
import type { Queryable } from "../../db/pool";
import { REDACTED, identifierHash, personalValues, redactPayload, subjectCandidates } from "../../providers/personal-data";
import type { ProviderDriver } from "../../providers/types";
import { jsonbText, type NormalizedColumns } from "./normalize-event";

// What of a verified delivery is stored about its person. As it came (PII_AT_REST=keep), unless its
// customer was erased (a later refund of an erased subject): then, and always with
// PII_AT_REST=redact, the body is stored with the driver's personal-data paths redacted, the raw
// bytes are that redacted JSON, and the row keeps the original's SHA-256 and when it was verified.

export type RedactedAtRest = { originalSha256: string; verifiedAt: Date };

export type KeptBody = { columns: NormalizedColumns; rawBody: Buffer; redaction: RedactedAtRest | null };

/** Which of `candidates` an erasure removed (their keyed hashes are in erased_identifiers). */
export async function erasedAmong(db: Queryable, hashKey: string | undefined, candidates: readonly string[]): Promise<string[]> {
  if (!hashKey || candidates.length === 0) return [];
  const hashes = candidates.map((candidate) => identifierHash(hashKey, candidate));
  const { rows } = await db.query<{ hash: string }>("SELECT hash FROM erased_identifiers WHERE hash = ANY($1::text[])", [hashes]);
  const erased = new Set(rows.map((row) => row.hash));
  return candidates.filter((_, index) => erased.has(hashes[index]!));
}

export async function keepPersonalData(
  db: Queryable,
  options: { driver: ProviderDriver; piiAtRest: "keep" | "redact"; hashKey: string | undefined; now: Date },
  columns: NormalizedColumns,
  rawBody: Buffer,
): Promise<KeptBody> {
  if (columns.payload === null) return { columns, rawBody, redaction: null };
  const payload: unknown = JSON.parse(columns.payload);
  const { driver } = options;
  const erased = await erasedAmong(db, options.hashKey, subjectCandidates(columns, personalValues(payload, driver.personalData)));
  if (erased.length === 0 && options.piiAtRest === "keep") return { columns, rawBody, redaction: null };
  const redacted = jsonbText(redactPayload(payload, { paths: driver.personalData, identifiers: erased }).value)!;
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
