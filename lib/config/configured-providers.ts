import type { AppConfig } from "./env";
import { PROVIDER_NAMES, type ProviderName } from "../providers/provider-names";

/** The providers this deployment accepts webhooks from (those with a secret configured). */
export function configuredProviders(config: AppConfig): ProviderName[] {
  return PROVIDER_NAMES.filter((name) => config.providers[name].secrets.length > 0);
}
