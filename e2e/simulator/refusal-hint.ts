import { DEVELOPMENT_SECRET_VALUES } from "@/lib/config/development-values";
import { secretSetting, type GatewayAccount } from "@/lib/gateway-accounts/gateway-account";
import { fingerprint } from "@/lib/gateway-accounts/sealed-account";
import { enableHint, findDriver, type ProviderName } from "@/lib/providers/registry";
import type { Refusal } from "./send-webhooks";

/** Where the run sent its webhooks and what it signed them with: the account played for each gateway (the default without --account). */
export type RunSettings = {
  url: string;
  /** The fake gateway's address, null when it is off. */
  gatewayUrl: string | null;
  signedAs: (provider: ProviderName) => GatewayAccount;
};

/** The signing secret as the summary may show it: a public development value whole, any other only by its length. */
function shownSecret(secret: string): string {
  return DEVELOPMENT_SECRET_VALUES.has(secret) ? secret : `${secret.length} characters`;
}

/** What to check when the app refused the signature: the secret of the account the simulator signed as, where the app keeps it. */
function secretHint(account: GatewayAccount): string {
  const secret = account.secrets[0];
  // A database account's secrets are sealed: lists show each one's fingerprint, never the secret.
  if (account.source === "database")
    return (
      `the simulator signs with the first of ${secretSetting(account)} as its DATABASE_URL holds them (fingerprint ${secret ? fingerprint(secret) : "none"}): ` +
      `does the app read the same database (the console's Gateway accounts and npm run cli -- accounts:list show each secret's fingerprint)?`
    );
  return `is the app's ${secretSetting(account)} set to the simulator's (${secret ? shownSecret(secret) : "none"}; it reads its environment, .env, then .env.example)?`;
}

/** What to check for one kind of refusal, in the app's or the simulator's settings; null when the answer says it all. */
export function refusalHint(refusal: Refusal, run: RunSettings): string | null {
  const driver = findDriver(refusal.provider);
  if (refusal.status === 0) return `nothing answered at ${run.url}: is the app running (npm run dev), and is --url right?`;
  if (driver && refusal.code === "UNKNOWN_ACCOUNT")
    return `add the account to the app (${driver.name.toUpperCase()}_ACCOUNTS and its variables, the console's Gateway accounts, or npm run cli -- accounts:add)`;
  if (!driver || refusal.status === 404) return `is ${run.url} the Webhook Inbox (--url)?`;
  if (refusal.code === "NOT_CONFIGURED") return `the app does not accept ${driver.label} webhooks: ${enableHint(driver)}, for the app`;
  const keysAt = run.gatewayUrl ? `${run.gatewayUrl}/.well-known/jwks.json` : "the fake gateway's (keep --gateway-port on)";
  if (driver.verification?.publishedKeys && (refusal.code === "INVALID_SIGNATURE" || refusal.code === "SIGNATURE_UNVERIFIABLE")) {
    return `the simulator signs ${driver.label} with the fake gateway's key, published at ${keysAt}: is the app's PAGARME_JWKS_URL that?`;
  }
  if (refusal.code === "INVALID_SIGNATURE") return secretHint(run.signedAs(driver.name));
  return null;
}
