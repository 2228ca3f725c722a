import { z } from "zod";
import { CHARGE_STATUSES, type ChargeStatus } from "../canonical/charge-event";

// A Standard Webhooks sender's own words, as a deployment maps them (STANDARD_STATUS_MAP,
// STANDARD_TYPE_MAP, STANDARD_FIELD_MAP). The driver knows the common vocabularies; these add to
// them or replace them for one sender.

/** The facts the driver reads from a payment event's `data`. */
export const VOCABULARY_FIELDS = ["id", "status", "amount", "amountRefunded", "currency", "customerId", "customerEmail"] as const;
export type VocabularyField = (typeof VOCABULARY_FIELDS)[number];

export type SenderVocabulary = {
  /** data.status words (lower-cased) -> payment status. */
  statuses: Record<string, ChargeStatus>;
  /** Event types -> payment status. */
  types: Record<string, ChargeStatus>;
  /** Where each fact sits in `data` (a dot path), replacing the usual places. */
  fields: Partial<Record<VocabularyField, string>>;
};

const PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** `key=value,key=value` pairs (a zod issue's path names the variable). */
function pairs(value: string | undefined, context: z.RefinementCtx): [string, string][] {
  const entries: [string, string][] = [];
  for (const part of (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)) {
    const at = part.indexOf("=");
    const key = part.slice(0, at).trim();
    const mapped = part.slice(at + 1).trim();
    if (at <= 0 || !mapped) context.addIssue({ code: "custom", message: `"${part}" is not key=value` });
    else entries.push([key, mapped]);
  }
  return entries;
}

function statusMap(lowerCaseKeys: boolean) {
  return z
    .string()
    .optional()
    .transform((value, context) => {
      const map: Record<string, ChargeStatus> = {};
      for (const [key, status] of pairs(value, context)) {
        if (!(CHARGE_STATUSES as readonly string[]).includes(status)) {
          context.addIssue({ code: "custom", message: `"${status}" is not one of ${CHARGE_STATUSES.join(", ")}` });
        } else map[lowerCaseKeys ? key.toLowerCase() : key] = status as ChargeStatus;
      }
      return map;
    });
}

export const senderVocabularySchema = z
  .object({
    STANDARD_STATUS_MAP: statusMap(true),
    STANDARD_TYPE_MAP: statusMap(false),
    STANDARD_FIELD_MAP: z
      .string()
      .optional()
      .transform((value, context) => {
        const fields: SenderVocabulary["fields"] = {};
        for (const [field, path] of pairs(value, context)) {
          if (!(VOCABULARY_FIELDS as readonly string[]).includes(field)) {
            context.addIssue({ code: "custom", message: `"${field}" is not one of ${VOCABULARY_FIELDS.join(", ")}` });
          } else if (!PATH.test(path)) {
            context.addIssue({ code: "custom", message: `"${path}" is not a dot path such as customer.email` });
          } else fields[field as VocabularyField] = path;
        }
        return fields;
      }),
  })
  .transform((raw): SenderVocabulary => ({
    statuses: raw.STANDARD_STATUS_MAP,
    types: raw.STANDARD_TYPE_MAP,
    fields: raw.STANDARD_FIELD_MAP,
  }));

export const EMPTY_VOCABULARY: SenderVocabulary = { statuses: {}, types: {}, fields: {} };
