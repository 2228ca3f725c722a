import type { Queryable } from "../db/pool";
import { REDACTED } from "../canonical/redacted";

// Erased stays erased, whoever writes a payment's customer: the worker settling an event or a
// refetch (kept-customer.ts), the host registering a payment (register-payment.ts). Each asks
// erased_identifiers with the keyed hashes of the customer it is about to write, in the transaction
// that writes it, and writes an erased customer REDACTED (both fields: one names the other). The
// keyed hash is the caller's (lib/providers/personal-data.ts: payments know nothing of drivers).

/** An identifier's keyed hash, as erased_identifiers keeps it. */
export type IdentifierHash = (value: string) => string;

export type Customer = { customerId?: string | null; customerEmail?: string | null };

/** The customers to write, each REDACTED when an erasure removed its id or its e-mail; as given without a hash (no key). */
export async function keptCustomerFields<T extends Customer>(
  db: Queryable,
  hash: IdentifierHash | undefined,
  customers: readonly T[],
): Promise<T[]> {
  const hashOf = new Map<string, string>();
  if (hash) {
    for (const { customerId, customerEmail } of customers) {
      for (const value of [customerId, customerEmail]) {
        if (value && value !== REDACTED) hashOf.set(value, hash(value));
      }
    }
  }
  if (hashOf.size === 0) return [...customers];
  const { rows } = await db.query<{ hash: string }>("SELECT hash FROM erased_identifiers WHERE hash = ANY($1::char(64)[])", [
    [...new Set(hashOf.values())],
  ]);
  const erased = new Set(rows.map((row) => row.hash));
  return customers.map((customer) =>
    [customer.customerId, customer.customerEmail].some((value) => value && erased.has(hashOf.get(value)!))
      ? { ...customer, customerId: REDACTED, customerEmail: REDACTED }
      : customer,
  );
}
