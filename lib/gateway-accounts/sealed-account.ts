import { createHash } from "node:crypto";
import { z } from "zod";
import { open, seal } from "../crypto/sealed-box";

// What of an account is secret (its webhook secrets and API credentials) is stored as one sealed
// value: AES-256-GCM under a key derived from ACCOUNT_SECRETS_KEY. Several keys may be configured
// while they are rotated: the first seals, any opens. What may be shown of a secret is its
// fingerprint, computed here when it is written.

const PURPOSE = "gateway account secrets";

const materialSchema = z.object({
  /** Newest first: the rotation's new secret leads, the old ones follow until retired. */
  secrets: z.array(z.string()),
  credentials: z.object({ apiKey: z.string().optional(), marketplaceId: z.string().optional() }),
});

/** An account's secret material, as sealed. */
export type AccountMaterial = z.infer<typeof materialSchema>;

export class AccountKeyError extends Error {
  override name = "AccountKeyError";
}

/**
 * The first 8 hex digits of the value's SHA-256: enough to tell secrets apart and to check one in
 * hand (`printf %s "$SECRET" | sha256sum | cut -c1-8`), too little to recover a secret of any
 * strength (32 bits match billions of candidates).
 */
export function fingerprint(value: string): string {
  return createHash("sha256").update(value).digest("hex").slice(0, 8);
}

/** Seals the material under the newest key; throws when no key is configured. */
export function sealMaterial(keys: readonly string[], material: AccountMaterial): string {
  const [newest] = keys;
  if (!newest) throw new AccountKeyError("ACCOUNT_SECRETS_KEY is not set: accounts with secrets can't be stored in the database");
  return seal(newest, PURPOSE, JSON.stringify(material));
}

/**
 * Opens sealed material with whichever configured key sealed it; `keyIndex` says which (0: the
 * newest, so re-sealing has nothing to do). Null when no key opens it.
 */
export function openMaterial(keys: readonly string[], sealed: string): { material: AccountMaterial; keyIndex: number } | null {
  for (const [keyIndex, key] of keys.entries()) {
    const text = open(key, PURPOSE, sealed);
    if (text === null) continue;
    const material = materialSchema.safeParse(JSON.parse(text));
    if (material.success) return { material: material.data, keyIndex };
  }
  return null;
}
