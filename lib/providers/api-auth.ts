import type { ApiAuth, ApiCredentials } from "./types";

// The ways the gateways' APIs take a secret key. A driver picks one; lib/http only sends the headers.

type Headers = Record<string, string>;

/** Headers built from the API key; none without one (its absence is reported by `needs`, not a 401). */
function fromKey(build: (key: string) => Headers): (credentials: ApiCredentials) => Headers {
  return ({ apiKey }) => (apiKey ? build(apiKey) : {});
}

/** `Authorization: Bearer <key>` (Stripe, Mercado Pago). */
export const bearerAuth: ApiAuth = { uses: ["apiKey"], needs: ["apiKey"], headers: fromKey((key) => ({ authorization: `Bearer ${key}` })) };

/** Bearer when a key is configured, nothing otherwise (a Standard Webhooks sender's own API). */
export const optionalBearerAuth: ApiAuth = { ...bearerAuth, needs: [] };

/** HTTP Basic with the secret key as user name and an empty password (Pagar.me core v5, Zoop). */
export function basicKeyAuth(needs: ApiAuth["needs"] = ["apiKey"]): ApiAuth {
  return { uses: needs, needs, headers: fromKey((key) => ({ authorization: `Basic ${Buffer.from(`${key}:`).toString("base64")}` })) };
}

/** The key in an `access_token` header (Asaas v3). */
export const accessTokenAuth: ApiAuth = { uses: ["apiKey"], needs: ["apiKey"], headers: fromKey((key) => ({ access_token: key })) };
