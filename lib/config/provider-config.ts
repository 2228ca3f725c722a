import { z } from "zod";
import { accountVariableSuffix, DEFAULT_ACCOUNT, isAccountName } from "../canonical/gateway-account";
import type { ProviderName } from "../providers/registry";
import type { ApiCredential, ApiCredentials, ProviderDriver } from "../providers/types";
import { csv, timeZone } from "./env-values";

// A gateway's variables, named from its driver's name and defaulting to what its driver declares:
// WEBHOOK_SECRET_<P>, <P>_API_URL, its API credentials, PAYMENT_SOURCE_<P>, REFETCH_<P>, <P>_TIMEZONE;
// and the variables of its own its driver declares (ProviderDriver.settings), under their full names.
// Besides the default account those make, <P>_ACCOUNTS names more accounts, each with its variables
// suffixed by its name (ACCOUNT_VARIABLES).

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

/** A named account's variables, as docs/configuration.md spells them; `list` names the accounts. */
const ACCOUNT_VARIABLES = {
  list: "<PROVIDER>_ACCOUNTS",
  secrets: "WEBHOOK_SECRET_<PROVIDER>_<NAME>",
  apiKey: "<PROVIDER>_API_KEY_<NAME>",
  marketplaceId: "<PROVIDER>_MARKETPLACE_ID_<NAME>",
  gatewayAccountId: "<PROVIDER>_GATEWAY_ACCOUNT_ID_<NAME>",
} as const;
type AccountField = Exclude<keyof typeof ACCOUNT_VARIABLES, "list">;

const accountVariableOf = (provider: string, field: AccountField | "list", name = "") =>
  ACCOUNT_VARIABLES[field].replace("<PROVIDER>", provider.toUpperCase()).replace("<NAME>", accountVariableSuffix(name));

/**
 * An account of a gateway named in the environment (`<PROVIDER>_ACCOUNTS`): its webhook secrets,
 * its API credentials (those its driver's API uses) and the gateway's own id for it, if any.
 */
export type EnvAccount = { name: string; secrets: string[]; credentials: ApiCredentials; gatewayAccountId: string | null };

const variableOf = (provider: string, field: Field) => FIELD_VARIABLES[field].replace("<PROVIDER>", provider.toUpperCase());

/** The variable that holds one of a gateway's API credentials, e.g. ("acme", "marketplaceId") -> ACME_MARKETPLACE_ID. */
export function credentialVariable(provider: string, credential: ApiCredential): string {
  return variableOf(provider, credential);
}

/** The variable that holds a gateway's webhook secrets, e.g. "acme" -> WEBHOOK_SECRET_ACME. */
export function webhookSecretVariable(provider: string): string {
  return variableOf(provider, "secrets");
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
        /** A variable the driver names as enough on its own is set: an account with no secret of its own is verified too. */
        enabledWithoutSecret: raw.enabledBy,
      };
    });
}

export type ProviderConfig = z.output<ReturnType<typeof providerSchema>> & {
  /** What the driver's own variables made (ProviderDriver.settings); undefined when it declares none. */
  settings: unknown;
  /** The accounts besides the default one that the environment names (`<PROVIDER>_ACCOUNTS`). */
  accounts: EnvAccount[];
};

const apiCredentialsOf = (driver: ProviderDriver): readonly ApiCredential[] => driver.apiAuth?.uses ?? [];

/** The fields a driver reads: all but the API credentials its API doesn't use. */
function fieldsOf(driver: ProviderDriver): Field[] {
  const uses: readonly string[] = apiCredentialsOf(driver);
  return (Object.keys(FIELD_VARIABLES) as Field[]).filter(
    (field) => (field !== "apiKey" && field !== "marketplaceId") || uses.includes(field),
  );
}

/** A named account's fields a driver reads: its secrets, the API credentials its API uses, the gateway's id. */
const accountFieldsOf = (driver: ProviderDriver): AccountField[] => ["secrets", ...apiCredentialsOf(driver), "gatewayAccountId"];

type Issue = { variable: string; message: string };

/** The accounts `<PROVIDER>_ACCOUNTS` names, each read from its suffixed variables; or what is wrong. */
function envAccounts(driver: ProviderDriver, env: Env): { accounts: EnvAccount[]; issues: Issue[] } {
  const list = accountVariableOf(driver.name, "list");
  const names = csv.parse(env[list]);
  const issues: Issue[] = [];
  const suffixes = new Map<string, string>();
  for (const name of names) {
    const suffix = accountVariableSuffix(name);
    if (!isAccountName(name))
      issues.push({ variable: list, message: `"${name}" is not an account name (letters, digits, _ . -; 100 at most)` });
    else if (name === DEFAULT_ACCOUNT)
      issues.push({ variable: list, message: `"${DEFAULT_ACCOUNT}" is the gateway's own variables' account` });
    else if (suffixes.has(suffix))
      issues.push({ variable: list, message: `"${name}" and "${suffixes.get(suffix)}" share the variables *_${suffix}` });
    suffixes.set(suffix, name);
  }
  if (issues.length > 0) return { accounts: [], issues };
  const accounts = names.map((name): EnvAccount => {
    const value = (field: AccountField) => env[accountVariableOf(driver.name, field, name)];
    const credentials: ApiCredentials = {};
    for (const credential of apiCredentialsOf(driver)) if (value(credential) !== undefined) credentials[credential] = value(credential);
    return { name, secrets: csv.parse(value("secrets")), credentials, gatewayAccountId: value("gatewayAccountId") ?? null };
  });
  return { accounts, issues };
}

/** The variables of its own a driver declares, by their full names. */
const settingVariables = (driver: ProviderDriver): string[] => Object.keys(driver.settings?.in.shape ?? {});

/** The variables a driver reads, each with the spelling docs/configuration.md documents it under. */
export function providerVariables(driver: ProviderDriver): { variable: string; documentedAs: string }[] {
  return [
    ...fieldsOf(driver).map((field) => ({ variable: variableOf(driver.name, field), documentedAs: FIELD_VARIABLES[field] })),
    { variable: accountVariableOf(driver.name, "list"), documentedAs: ACCOUNT_VARIABLES.list },
    ...accountFieldsOf(driver).map((field) => ({
      variable: ACCOUNT_VARIABLES[field].replace("<PROVIDER>", driver.name.toUpperCase()),
      documentedAs: ACCOUNT_VARIABLES[field],
    })),
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
      const named = envAccounts(driver, env);
      for (const issue of named.issues) context.addIssue({ code: "custom", path: [issue.variable], message: issue.message });
      if (result.success && settings.success)
        providers[driver.name] = { ...result.data, settings: settings.data, accounts: named.accounts };
    }
    return providers;
  });
}
