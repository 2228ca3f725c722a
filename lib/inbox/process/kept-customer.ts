import type { AppConfig } from "../../config/env";
import type { Queryable } from "../../db/pool";
import type { ChargeUpdate } from "../../payments/apply-charge-update";
import { REDACTED, identifierHash } from "../../providers/personal-data";
import type { ProviderName } from "../../providers/registry";

// What processing writes of a payment's customer. The event's stored body was checked against the
// erasures when it was stored (store-event.ts), but a refetch answers with the person in full, and a
// notice that names nobody (some gateways send only an id) has its payment's customer only from the API: so
// the customer each update names is asked of erased_identifiers again, in the transaction that
// writes it, and an erased one is written REDACTED (which no later event fills back in). A gateway
// whose bodies are stored redacted (PII_AT_REST=redact) keeps the customer id, the key payments are
// searched and settled by, and no e-mail, whether its body or its API named one.

/** The updates with the customer each may write. */
export async function keptCustomers(db: Queryable, config: AppConfig, updates: readonly ChargeUpdate[]): Promise<ChargeUpdate[]> {
  const hashKey = config.privacyHashKey;
  const hashOf = new Map<string, string>();
  if (hashKey) {
    for (const { snapshot } of updates) {
      for (const value of [snapshot.customerId, snapshot.customerEmail]) {
        if (value && value !== REDACTED) hashOf.set(value, identifierHash(hashKey, value));
      }
    }
  }
  const erased = new Set<string>();
  if (hashOf.size > 0) {
    const { rows } = await db.query<{ hash: string }>("SELECT hash FROM erased_identifiers WHERE hash = ANY($1::char(64)[])", [
      [...new Set(hashOf.values())],
    ]);
    for (const { hash } of rows) erased.add(hash);
  }
  return updates.map((update) => {
    const { customerId, customerEmail } = update.snapshot;
    if ([customerId, customerEmail].some((value) => value && erased.has(hashOf.get(value)!))) {
      return { ...update, snapshot: { ...update.snapshot, customerId: REDACTED, customerEmail: REDACTED } };
    }
    if (customerEmail && customerEmail !== REDACTED && config.providers[update.provider as ProviderName]?.piiAtRest === "redact") {
      return { ...update, snapshot: { ...update.snapshot, customerEmail: REDACTED } };
    }
    return update;
  });
}
