import { DRIVERS } from "../providers/registry";
import { parseApiToken } from "./api-tokens";
import { DEVELOPMENT_SECRET_VALUES } from "./development-values";

// How weak a secret production refuses: a one-character token or a `whsec_` with nothing after it (an
// empty HMAC key anyone can sign with) would pass every other check. Webhook secrets are whatever the
// gateway issued, so this is a floor, not a policy.

/** The fewest characters of a token or shared secret, and the fewest bytes of a decoded HMAC key. */
export const MIN_SECRET_LENGTH = 16;

// Variables holding comma-separated secrets, and how each part's strength is measured.
const TOKEN_LISTS = ["PAYMENTS_API_TOKENS", "HEALTH_TOKENS"];
const WEBHOOK_SECRET = "WEBHOOK_SECRET_";
// Our own whsec_ key: what signs the pushes to a destination.
const WHSEC_KEYS = ["DESTINATION_SECRET"];
// One secret each, commas and all: the identity provider issued it.
const SINGLE_SECRETS = ["OIDC_CLIENT_SECRET"];
const whsecKey = (secret: string) => Buffer.from(secret.replace(/^whsec_/, ""), "base64");

/** The driver of WEBHOOK_SECRET_<PROVIDER> or of one of its accounts' WEBHOOK_SECRET_<PROVIDER>_<NAME>. */
function webhookSecretDriver(name: string) {
  const rest = name.slice(WEBHOOK_SECRET.length).toLowerCase();
  return DRIVERS.find((driver) => rest === driver.name || rest.startsWith(`${driver.name}_`));
}

/** The key a secret stands for, where it is not the text itself (whsec_ and base64). */
const secretKeyOf = (name: string) =>
  WHSEC_KEYS.includes(name) ? whsecKey : name.startsWith(WEBHOOK_SECRET) ? webhookSecretDriver(name)?.verification?.secretKey : undefined;

function strength(name: string, part: string): number {
  if (secretKeyOf(name)) return secretKeyOf(name)!(part).length;
  // A token's scope (`<gateway>:TOKEN`) is no part of its secret.
  const token = name === "PAYMENTS_API_TOKENS" ? parseApiToken(part) : null;
  return token && "token" in token ? token.token.length : part.length;
}

/** Problem lines for the variables in `env` with a secret below the floor. */
export function weakSecrets(env: Record<string, string | undefined>): string[] {
  return Object.entries(env)
    .filter(
      ([name, value]) =>
        value !== undefined &&
        (name.startsWith(WEBHOOK_SECRET) || TOKEN_LISTS.includes(name) || WHSEC_KEYS.includes(name) || SINGLE_SECRETS.includes(name)),
    )
    .filter(([name, value]) =>
      (SINGLE_SECRETS.includes(name) ? [value!] : value!.split(",")).some((part) => strength(name, part.trim()) < MIN_SECRET_LENGTH),
    )
    .map(([name]) =>
      secretKeyOf(name)
        ? `  ${name}: each whsec_ secret must decode to at least ${MIN_SECRET_LENGTH} bytes of key`
        : `  ${name}: each secret must be at least ${MIN_SECRET_LENGTH} characters`,
    )
    .sort();
}

/**
 * Why production refuses one of an account's webhook secrets kept in the database, or null: the
 * floor WEBHOOK_SECRET_<PROVIDER> has, and none of .env.example's development values.
 */
export function accountSecretProblem(provider: string, secret: string): string | null {
  const name = `${WEBHOOK_SECRET}${provider.toUpperCase()}`;
  if (strength(name, secret) < MIN_SECRET_LENGTH) {
    return secretKeyOf(name)
      ? `each whsec_ secret must decode to at least ${MIN_SECRET_LENGTH} bytes of key`
      : `each secret must be at least ${MIN_SECRET_LENGTH} characters`;
  }
  return DEVELOPMENT_SECRET_VALUES.has(secret) ? "that is a development value from .env.example" : null;
}
