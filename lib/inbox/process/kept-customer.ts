import type { AppConfig } from "../../config/env";
import type { Queryable } from "../../db/pool";
import type { ChargeUpdate } from "../../payments/apply-charge-update";
import { keptCustomerFields, type IdentifierHash } from "../../payments/erased-customer";
import { REDACTED, identifierHash } from "../../providers/personal-data";
import type { ProviderName } from "../../providers/registry";

// What processing writes of a payment's customer. The event's stored body was checked against the
// erasures when it was stored (store-event.ts), but a refetch answers with the person in full, and a
// notice that names nobody (some gateways send only an id) has its payment's customer only from the API: so
// the customer each update names is asked of erased_identifiers again, in the transaction that
// writes it, and an erased one is written REDACTED (which no later event fills back in). A gateway
// whose bodies are stored redacted (PII_AT_REST=redact) keeps the customer id, the key payments are
// searched and settled by, and no e-mail, whether its body or its API named one.

/** How erased_identifiers hashes an identifier under this deployment's key; undefined without one (nothing was erased). */
export function erasedIdentifierHash(config: AppConfig): IdentifierHash | undefined {
  const key = config.privacyHashKey;
  return key ? (value) => identifierHash(key, value) : undefined;
}

/** The updates with the customer each may write. */
export async function keptCustomers(db: Queryable, config: AppConfig, updates: readonly ChargeUpdate[]): Promise<ChargeUpdate[]> {
  const kept = await keptCustomerFields(
    db,
    erasedIdentifierHash(config),
    updates.map((update) => update.snapshot),
  );
  return updates.map((update, index) => {
    const snapshot = kept[index]!;
    if (
      snapshot.customerEmail &&
      snapshot.customerEmail !== REDACTED &&
      config.providers[update.provider as ProviderName]?.piiAtRest === "redact"
    ) {
      return { ...update, snapshot: { ...snapshot, customerEmail: REDACTED } };
    }
    return snapshot === update.snapshot ? update : { ...update, snapshot };
  });
}
