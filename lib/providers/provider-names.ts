/** Every gateway the inbox has a driver for; the `{provider}` in `/api/webhooks/{provider}`. */
export const PROVIDER_NAMES = ["stripe", "standard", "pagarme", "asaas", "mercadopago", "zoop"] as const;

export type ProviderName = (typeof PROVIDER_NAMES)[number];

export function isProviderName(value: string): value is ProviderName {
  return (PROVIDER_NAMES as readonly string[]).includes(value);
}
