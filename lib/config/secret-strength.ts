import { findDriver } from "../providers/registry";
import { parseApiToken } from "./api-tokens";

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

/** The key a secret stands for, where it is not the text itself (whsec_ and base64). */
const secretKeyOf = (name: string) =>
  WHSEC_KEYS.includes(name)
    ? whsecKey
    : name.startsWith(WEBHOOK_SECRET)
      ? findDriver(name.slice(WEBHOOK_SECRET.length).toLowerCase())?.verification?.secretKey
      : undefined;

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
