import { z } from "zod";
import type { ProviderName } from "../providers/registry";
import type { ApiCredential, ApiCredentials, ProviderDriver } from "../providers/types";
import { csv, timeZone } from "./env-values";

// A gateway's variables, named from its driver's name and defaulting to what its driver declares:
// WEBHOOK_SECRET_<P>, <P>_API_URL, its API credentials, PAYMENT_SOURCE_<P>, REFETCH_<P>, <P>_TIMEZONE;
// and the variables of its own its driver declares (ProviderDriver.settings), under their full names.

type Env = Record<string, string | undefined>;

/** Each field of providerSchema and its variable, as docs/configuration.md spells it. */
const FIELD_VARIABLES = {
  secrets: "WEBHOOK_SECRET_<PROVIDER>",
  apiUrl: "<PROVIDER>_API_URL",
  apiKey: "<PROVIDER>_API_KEY",
  marketplaceId: "<PROVIDER>_MARKETPLACE_ID",
  paymentSource: "PAYMENT_SOURCE_<PROVIDER>",
  refetch: "REFETCH_<PROVIDER>",
  timeZone: "<PROVIDER>_TIMEZONE",
  reconcileInterval: "RECONCILE_INTERVAL_MINUTES_<PROVIDER>",
  piiAtRest: "PII_AT_REST_<PROVIDER>",
} as const satisfies Record<string, string>;
type Field = keyof typeof FIELD_VARIABLES;

const variableOf = (provider: string, field: Field) => FIELD_VARIABLES[field].replace("<PROVIDER>", provider.toUpperCase());

/** The variable that holds one of a gateway's API credentials, e.g. ("acme", "marketplaceId") -> ACME_MARKETPLACE_ID. */
export function credentialVariable(provider: string, credential: ApiCredential): string {
  return variableOf(provider, credential);
}

function providerSchema(driver: ProviderDriver) {
  return z
    .object({
      secrets: csv,
      apiUrl: z.url().optional(),
      apiKey: z.string().optional(),
      marketplaceId: z.string().optional(),
      paymentSource: z.enum(["gateway", "host"]).default(driver.defaults.paymentSource),
      refetch: z.string().default(driver.defaults.refetch),
      timeZone: timeZone(driver.defaults.timeZone),
      // Minutes between scheduled reconciliation runs; 0 turns them off. They run only once the API's credentials are set.
      reconcileInterval: z.coerce.number().int().min(0).default(60),
      // keep: bodies as they came; redact: the driver's personal-data paths replaced before storing (docs/privacy.md).
      piiAtRest: z.enum(["keep", "redact"]).default("keep"),
      /** One of the variables the driver names as enough on their own is set. */
      enabledBy: z.boolean(),
    })
    .transform((raw) => {
      const credentials: ApiCredentials = {};
      for (const credential of ["apiKey", "marketplaceId"] as const)
        if (raw[credential] !== undefined) credentials[credential] = raw[credential];
      return {
        secrets: raw.secrets,
        apiUrl: raw.apiUrl ?? driver.defaults.apiUrl,
        /** `<PROVIDER>_API_KEY` and `<PROVIDER>_MARKETPLACE_ID`, those its driver's API uses. */
        credentials,
        paymentSource: raw.paymentSource,
        refetchTypes: raw.refetch
          .split(",")
          .map((part) => part.trim())
          .filter((part) => part.length > 0 && part !== "none"),
        /** Zone for local times without an offset in this gateway's bodies. */
        timeZone: raw.timeZone,
        /** Minutes between scheduled reconciliation runs (0: none). */
        reconcileIntervalMinutes: raw.reconcileInterval,
        /** "redact": only the body with its personal-data paths redacted is stored (verified on the original bytes first). */
        piiAtRest: raw.piiAtRest,
        /**
         * Webhooks are accepted (the one meaning of "configured"): a secret is set, or a variable the
         * driver names as enough on its own (a signature scheme that needs no shared secret).
         */
        enabled: raw.secrets.length > 0 || raw.enabledBy,
      };
    });
}

export type ProviderConfig = z.output<ReturnType<typeof providerSchema>> & {
  /** What the driver's own variables made (ProviderDriver.settings); undefined when it declares none. */
  settings: unknown;
};

/** The fields a driver reads: all but the API credentials its API doesn't use. */
function fieldsOf(driver: ProviderDriver): Field[] {
  const uses: readonly string[] = driver.apiAuth?.uses ?? [];
  return (Object.keys(FIELD_VARIABLES) as Field[]).filter(
    (field) => (field !== "apiKey" && field !== "marketplaceId") || uses.includes(field),
  );
}

/** The variables of its own a driver declares, by their full names. */
const settingVariables = (driver: ProviderDriver): string[] => Object.keys(driver.settings?.in.shape ?? {});

/** The variables a driver reads, each with the spelling docs/configuration.md documents it under. */
export function providerVariables(driver: ProviderDriver): { variable: string; documentedAs: string }[] {
  return [
    ...fieldsOf(driver).map((field) => ({ variable: variableOf(driver.name, field), documentedAs: FIELD_VARIABLES[field] })),
    ...settingVariables(driver).map((variable) => ({ variable, documentedAs: variable })),
  ];
}

/** Every driver's configuration, keyed by its name. */
export function providersSchema(drivers: readonly ProviderDriver<ProviderName>[]) {
  return z.record(z.string(), z.string()).transform((env: Env, context) => {
    const providers = {} as Record<ProviderName, ProviderConfig>;
    for (const driver of drivers) {
      const own = {
        ...Object.fromEntries(fieldsOf(driver).map((field) => [field, env[variableOf(driver.name, field)]])),
        enabledBy: (driver.enabledBy ?? []).some((variable) => env[variable] !== undefined),
      };
      const result = providerSchema(driver).safeParse(own);
      const settings = driver.settings?.safeParse(env) ?? { success: true, data: undefined };
      for (const issue of result.error?.issues ?? []) {
        context.addIssue({ code: "custom", path: [variableOf(driver.name, issue.path[0] as Field)], message: issue.message });
      }
      // A setting's issue path starts with its variable's full name.
      for (const issue of settings.error?.issues ?? []) {
        context.addIssue({ code: "custom", path: [String(issue.path[0])], message: issue.message });
      }
      if (result.success && settings.success) providers[driver.name] = { ...result.data, settings: settings.data };
    }
    return providers;
  });
}
