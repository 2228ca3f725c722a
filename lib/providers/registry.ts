import { asaasDriver } from "./asaas";
import { mercadopagoDriver } from "./mercadopago";
import { pagarmeDriver } from "./pagarme";
import { standardDriver } from "./standard";
import { stripeDriver } from "./stripe";
import { zoopDriver } from "./zoop";
import type { ProviderDriver } from "./types";

/**
 * Every driver. A new gateway is its driver file (verification, parsing, refetch and its defaults)
 * plus one entry here: configuration, the console's filters and the documented variables follow.
 */
export const DRIVERS = [stripeDriver, standardDriver, pagarmeDriver, asaasDriver, mercadopagoDriver, zoopDriver] as const;

/** A gateway the inbox has a driver for; the `{provider}` in `/api/webhooks/{provider}`. */
export type ProviderName = (typeof DRIVERS)[number]["name"];

export const PROVIDER_NAMES: readonly ProviderName[] = DRIVERS.map((driver) => driver.name);

const byName = new Map<string, ProviderDriver<ProviderName>>(DRIVERS.map((driver) => [driver.name, driver]));

export function isProviderName(value: string): value is ProviderName {
  return byName.has(value);
}

export function findDriver(provider: string): ProviderDriver<ProviderName> | undefined {
  return byName.get(provider);
}

/** How to turn a gateway's webhooks on, naming the variables it needs (its driver's own words, else its shared secret). */
export function enableHint(driver: Pick<ProviderDriver, "name" | "enableWith">): string {
  return driver.enableWith ?? `set WEBHOOK_SECRET_${driver.name.toUpperCase()}`;
}
