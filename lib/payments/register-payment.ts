import { z } from "zod";
import type { AppConfig } from "../config/env";
import type { Queryable } from "../db/pool";
import { keptCustomerFields, type IdentifierHash } from "./erased-customer";
import { PAYMENT_STATUSES } from "./state-machine";

const customerId = z.string().max(150);
const customerEmail = z.email().max(320);
type Customer = { customerId: string; customerEmail: string };

/** A deprecated flat field and its place in `customer` both given, and differing: which one is meant can't be told. */
function conflicting(nested: string | undefined, flat: string | undefined, same: (a: string, b: string) => boolean): boolean {
  return nested !== undefined && flat !== undefined && !same(nested, flat);
}

/**
 * What the host application tells us about a payment it created at one of the gateways the
 * configuration knows (its keys: payments know the gateways' names, never their drivers). The
 * customer comes as `customer: { id?, email? }`, the shape every answer and change uses; the flat
 * `customerId` and `customerEmail` of earlier clients are still taken (deprecated), and one given in
 * both places must say the same (an e-mail in any case).
 */
export function registerPaymentSchema(config: Pick<AppConfig, "providers">) {
  return z
    .object({
      provider: z.enum(Object.keys(config.providers)),
      chargeId: z.string().min(1).max(150),
      amount: z.number().int().nonnegative(),
      currency: z
        .string()
        .length(3)
        .transform((value) => value.toLowerCase()),
      status: z.enum(PAYMENT_STATUSES).default("pending"),
      customer: z.strictObject({ id: customerId.optional(), email: customerEmail.optional() }).optional(),
      /** Deprecated: customer.id. */
      customerId: customerId.optional(),
      /** Deprecated: customer.email. */
      customerEmail: customerEmail.optional(),
    })
    .superRefine((input, context) => {
      const exact = (a: string, b: string) => a === b;
      const anyCase = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
      for (const [field, flat, same] of [
        ["id", "customerId", exact],
        ["email", "customerEmail", anyCase],
      ] as const) {
        if (conflicting(input.customer?.[field], input[flat], same)) {
          context.addIssue({
            code: "custom",
            path: ["customer", field],
            message: `customer.${field} and the deprecated ${flat} differ: send customer.${field} alone`,
          });
        }
      }
    })
    .transform(({ customer, customerId: flatId, customerEmail: flatEmail, ...payment }): typeof payment & Partial<Customer> => ({
      ...payment,
      customerId: customer?.id ?? flatId,
      customerEmail: customer?.email ?? flatEmail,
    }));
}
export type RegisterPaymentInput = z.input<ReturnType<typeof registerPaymentSchema>>;
export type PaymentRegistration = z.output<ReturnType<typeof registerPaymentSchema>>;

/**
 * Registers a payment inside the caller's transaction (idempotent: a second call with the same charge
 * changes nothing); `created` says whether this call created it. The events that arrived before it
 * wait on the inbox's retry backoff: the inbox's registration (registerPaymentAndWake) wakes them in
 * the same transaction. A customer an erasure removed (asked with `hash`) is registered REDACTED:
 * the host's word is no new legal basis the inbox could tell from a stale copy (docs/privacy.md).
 */
export async function registerPayment(
  tx: Queryable,
  payment: PaymentRegistration,
  hash?: IdentifierHash,
): Promise<{ id: number; created: boolean }> {
  const [customer] = await keptCustomerFields(tx, hash, [payment]);
  const inserted = await tx.query<{ id: number }>(
    `INSERT INTO payments (provider, gateway_charge_id, status, amount, currency, customer_id, customer_email, registered_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'host')
     ON CONFLICT (provider, gateway_charge_id) DO NOTHING
     RETURNING id`,
    [
      payment.provider,
      payment.chargeId,
      payment.status,
      payment.amount,
      payment.currency,
      customer!.customerId ?? null,
      customer!.customerEmail?.toLowerCase() ?? null,
    ],
  );
  const created = inserted.rows[0];
  if (!created) {
    const { rows } = await tx.query<{ id: number }>("SELECT id FROM payments WHERE provider = $1 AND gateway_charge_id = $2", [
      payment.provider,
      payment.chargeId,
    ]);
    return { id: rows[0]!.id, created: false };
  }
  await tx.query(`INSERT INTO payment_transitions (payment_id, to_status, to_amount_refunded, source) VALUES ($1, $2, 0, 'registration')`, [
    created.id,
    payment.status,
  ]);
  return { id: created.id, created: true };
}
