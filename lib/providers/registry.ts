import { isProviderName } from "../config/provider-names";
import { standardDriver } from "./standard";
import { stripeDriver } from "./stripe";
import type { ProviderDriver } from "./types";

/** Every driver, by the name in `/api/webhooks/{provider}`. A new gateway is one file plus one line here. */
const DRIVERS: ProviderDriver[] = [stripeDriver, standardDriver];

const byName = new Map(DRIVERS.map((driver) => [driver.name as string, driver]));

export function findDriver(provider: string): ProviderDriver | undefined {
  return isProviderName(provider) ? byName.get(provider) : undefined;
}

export function allDrivers(): readonly ProviderDriver[] {
  return DRIVERS;
}
