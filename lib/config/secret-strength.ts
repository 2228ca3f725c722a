import { findDriver } from "../providers/registry";

// How weak a secret production refuses: a one-character token or a `whsec_` with nothing after it (an
// empty HMAC key anyone can sign with) would pass every other check. Webhook secrets are whatever the
// gateway issued, so this is a floor, not a policy.

/** The fewest characters of a token or shared secret, and the fewest bytes of a decoded HMAC key. */
export const MIN_SECRET_LENGTH = 16;

// Variables holding comma-separated secrets, and how each part's strength is measured.
const TOKEN_LISTS = ["PAYMENTS_API_TOKENS", "HEALTH_TOKENS"];
const WEBHOOK_SECRET = "WEBHOOK_SECRET_";

/** The key a webhook secret stands for, where its driver says it is not the text itself (whsec_ and base64). */
const secretKeyOf = (name: string) =>
  name.startsWith(WEBHOOK_SECRET) ? findDriver(name.slice(WEBHOOK_SECRET.length).toLowerCase())?.verification?.secretKey : undefined;

function strength(name: string, part: string): number {
  return secretKeyOf(name)?.(part).length ?? part.length;
}

/** Problem lines for the variables in `env` with a secret below the floor. */
export function weakSecrets(env: Record<string, string | undefined>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => value !== undefined && (name.startsWith(WEBHOOK_SECRET) || TOKEN_LISTS.includes(name)))
    .filter(([name, value]) => value!.split(",").some((part) => strength(name, part.trim()) < MIN_SECRET_LENGTH))
    .map(([name]) =>
      secretKeyOf(name)
        ? `  ${name}: each whsec_ secret must decode to at least ${MIN_SECRET_LENGTH} bytes of key`
        : `  ${name}: each secret must be at least ${MIN_SECRET_LENGTH} characters`,
    )
    .sort();
}
