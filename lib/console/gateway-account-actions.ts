import { z } from "zod";
import {
  putGatewayAccount,
  removeGatewayAccount as remove,
  rotateGatewayAccount as rotate,
  setGatewayAccountEnabled as setEnabled,
  type GatewayAccountView,
} from "../gateway-accounts/manage-gateway-accounts";
import { PROVIDER_NAMES } from "../providers/registry";
import { consoleAction } from "./console-action";

// The console's changes to the gateway accounts kept in the database (admin): what the host API and
// the CLI do, audited as the signed-in user. A secret goes in; what comes back is the account's view
// (fingerprints only), never a secret.

const which = z.object({ provider: z.enum(PROVIDER_NAMES), name: z.string().trim().min(1).max(100) });
const optionalSecret = z
  .string()
  .max(1000)
  .optional()
  .transform((value) => (value ? value : undefined));

const actor = (user: { email: string }, ip: string | null) => ({ name: user.email, ip });

/** Adds an account with its webhook secret and, optionally, its API credentials and the gateway's id of it. */
export const addGatewayAccount = consoleAction(
  which.extend({
    secret: optionalSecret,
    apiKey: optionalSecret,
    marketplaceId: optionalSecret,
    gatewayAccountId: z
      .string()
      .trim()
      .max(200)
      .optional()
      .transform((value) => (value ? value : undefined)),
  }),
  async ({ pool, config }, input, { user, ip }): Promise<GatewayAccountView> => {
    const credentials = {
      ...(input.apiKey ? { apiKey: input.apiKey } : {}),
      ...(input.marketplaceId ? { marketplaceId: input.marketplaceId } : {}),
    };
    const { account } = await putGatewayAccount(
      { pool, config },
      input.provider,
      input.name,
      {
        secrets: input.secret ? [input.secret] : [],
        ...(Object.keys(credentials).length > 0 ? { credentials } : {}),
        ...(input.gatewayAccountId ? { gatewayAccountId: input.gatewayAccountId } : {}),
      },
      actor(user, ip),
    );
    return account;
  },
);

/** A new secret beside the old ones, a new API key, or the old secrets retired. */
export const rotateGatewayAccount = consoleAction(
  which.extend({ secret: optionalSecret, apiKey: optionalSecret, retireOld: z.boolean().default(false) }),
  async ({ pool, config }, { provider, name, secret, apiKey, retireOld }, { user, ip }) =>
    rotate({ pool, config }, provider, name, { secret, apiKey, retireOld }, actor(user, ip)),
);

export const setGatewayAccountEnabled = consoleAction(
  which.extend({ enabled: z.boolean() }),
  async ({ pool, config }, input, { user, ip }) => setEnabled({ pool, config }, input.provider, input.name, input.enabled, actor(user, ip)),
);

export const removeGatewayAccount = consoleAction(which, async ({ pool, config }, { provider, name }, { user, ip }) => {
  await remove({ pool, config }, provider, name, actor(user, ip));
  return { removed: true };
});
