import { isProviderName } from "./provider-names";
import { asaasDriver } from "./asaas";
import { mercadopagoDriver } from "./mercadopago";
import { pagarmeDriver } from "./pagarme";
import { standardDriver } from "./standard";
import { stripeDriver } from "./stripe";
import { zoopDriver } from "./zoop";
import type { ProviderDriver } from "./types";

/** Every driver, by the name in `/api/webhooks/{provider}`. A new gateway is one file plus one line here. */
const DRIVERS: ProviderDriver[] = [stripeDriver, standardDriver, pagarmeDriver, asaasDriver, mercadopagoDriver, zoopDriver];

const byName = new Map(DRIVERS.map((driver) => [driver.name as string, driver]));

export function findDriver(provider: string): ProviderDriver | undefined {
  return isProviderName(provider) ? byName.get(provider) : undefined;
}
