import { randomBytes } from "node:crypto";
import type { Queryable } from "@/lib/db/pool";
import { fingerprint, sealMaterial } from "@/lib/gateway-accounts/sealed-account";

/** One seeded account: its name (its URL's last segment) and the secret its deliveries are signed with. */
export type SeededAccount = { name: string; secret: string };

/**
 * `count` Stripe accounts in the database, each with a secret of its own, sealed as
 * lib/gateway-accounts seals them; written in bulk (the benchmark's setup, not an operator's path:
 * no audit rows, no notifications, nothing running is listening yet).
 */
export async function seedStripeAccounts(db: Queryable, count: number, secretKey: string): Promise<SeededAccount[]> {
  const accounts = Array.from({ length: count }, (_, index) => ({
    name: `acct-${index}`,
    secret: `whsec_bench_${index}_${randomBytes(12).toString("hex")}`,
  }));
  for (let start = 0; start < accounts.length; start += 1000) {
    const chunk = accounts.slice(start, start + 1000);
    await db.query(
      `INSERT INTO gateway_accounts (provider, name, sealed, secret_fingerprints)
       SELECT 'stripe', name, sealed, jsonb_build_array(jsonb_build_object('fingerprint', print, 'addedAt', NULL))
         FROM unnest($1::text[], $2::text[], $3::text[]) AS t(name, sealed, print)`,
      [
        chunk.map(({ name }) => name),
        chunk.map(({ secret }) => sealMaterial([secretKey], { secrets: [secret], credentials: {} })),
        chunk.map(({ secret }) => fingerprint(secret)),
      ],
    );
  }
  return accounts;
}
