import { DRIVERS } from "../providers/registry";

// The development secrets .env.example ships for what guards the way in: webhook secrets (each
// driver's exampleSecret), host API tokens, the session key, the accounts' sealing key (lib/config/env.test.ts keeps this list
// equal to the file's). They are public: in production a variable holding one of them refuses to
// start, whatever the variable. The example's gateway API keys are not here: they only open the
// simulator's fake gateway, and the e2e suite runs the production build against it.

export const DEVELOPMENT_SECRET_VALUES: ReadonlySet<string> = new Set([
  ...DRIVERS.flatMap((driver) => driver.exampleSecret ?? []),
  "dev-payments-token",
  "dev-health-token",
  "dev-auth-secret-change-me-0123456789abcdef",
  "dev-account-secrets-key-change-me-0123456789",
]);

/** Names of the variables in `env` that hold a development value (whole, or one of a comma list). */
export function variablesWithDevelopmentValues(env: Record<string, string | undefined>): string[] {
  return Object.entries(env)
    .filter(([, value]) => value !== undefined && value.split(",").some((part) => DEVELOPMENT_SECRET_VALUES.has(part.trim())))
    .map(([name]) => name)
    .sort();
}
