import { PROVIDER_NAMES, type ProviderName } from "../providers/registry";
import { csv } from "./env-values";

// PAYMENTS_API_TOKENS entries: `TOKEN` reads every gateway's payments and changes;
// `<gateway>+<gateway>:TOKEN` only those gateways'. A prefix of lower-case words before a colon is always a scope, and each word
// must be a gateway: a misspelt one stops the start instead of leaving the token unscoped.

export type ApiToken = { token: string; /** null: every gateway. */ providers: readonly ProviderName[] | null };

const SCOPED = /^([a-z0-9]+(?:\+[a-z0-9]+)*):(.+)$/;

const isProvider = (name: string): name is ProviderName => (PROVIDER_NAMES as readonly string[]).includes(name);

/** An entry's token and scope, or the scope words that are not gateways. */
export function parseApiToken(entry: string): ApiToken | { unknown: string[] } {
  const scoped = SCOPED.exec(entry);
  if (!scoped) return { token: entry, providers: null };
  const names = scoped[1]!.split("+");
  const unknown = names.filter((name) => !isProvider(name));
  return unknown.length > 0 ? { unknown } : { token: scoped[2]!, providers: [...new Set(names.filter(isProvider))] };
}

/** The entry as written back (what the production secrets file keeps). */
export const apiTokenEntry = ({ token, providers }: ApiToken) => (providers ? `${providers.join("+")}:${token}` : token);

export const apiTokenList = csv.transform((entries, context) =>
  entries.map((entry): ApiToken => {
    const parsed = parseApiToken(entry);
    if ("unknown" in parsed) {
      context.addIssue({
        code: "custom",
        message: `a token's scope names ${parsed.unknown.join(", ")}, not gateways (${PROVIDER_NAMES.join(", ")})`,
      });
      return { token: "", providers: [] };
    }
    return parsed;
  }),
);
