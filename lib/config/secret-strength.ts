import { standardSecretKey } from "../providers/standard";

// How weak a secret production refuses: a one-character token or a `whsec_` with nothing after it (an
// empty HMAC key anyone can sign with) would pass every other check. Webhook secrets are whatever the
// gateway issued, so this is a floor, not a policy.

/** The fewest characters of a token or shared secret, and the fewest bytes of a decoded HMAC key. */
export const MIN_SECRET_LENGTH = 16;

// Variables holding comma-separated secrets, and how each part's strength is measured.
const TOKEN_LISTS = ["PAYMENTS_API_TOKENS", "HEALTH_TOKENS"];

function strength(name: string, part: string): number {
  // Standard Webhooks keys are the base64-decoded part of `whsec_...`: what counts is the key.
  return name === "WEBHOOK_SECRET_STANDARD" ? standardSecretKey(part).length : part.length;
}

/** Problem lines for the variables in `env` with a secret below the floor. */
export function weakSecrets(env: Record<string, string | undefined>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => value !== undefined && (name.startsWith("WEBHOOK_SECRET_") || TOKEN_LISTS.includes(name)))
    .filter(([name, value]) => value!.split(",").some((part) => strength(name, part.trim()) < MIN_SECRET_LENGTH))
    .map(([name]) =>
      name === "WEBHOOK_SECRET_STANDARD"
        ? `  ${name}: each whsec_ secret must decode to at least ${MIN_SECRET_LENGTH} bytes of key`
        : `  ${name}: each secret must be at least ${MIN_SECRET_LENGTH} characters`,
    )
    .sort();
}
