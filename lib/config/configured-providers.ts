import type { AppConfig } from "./env";
import type { ProviderName } from "../providers/registry";

/** The providers this deployment accepts webhooks from (ProviderConfig.enabled: the one meaning of "configured"). */
export function configuredProviders(config: AppConfig): ProviderName[] {
  return (Object.keys(config.providers) as ProviderName[]).filter((name) => config.providers[name].enabled);
}
