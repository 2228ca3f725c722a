/**
 * The account of a gateway that every installation had before accounts existed: what
 * `/api/webhooks/{provider}` receives for, and what an event names when neither its URL nor its body
 * names another. Stored as is in every `gateway_account` column (their default).
 */
export const DEFAULT_ACCOUNT = "default";

/**
 * A registered account's name: a URL path segment (`/api/webhooks/{provider}/{name}`) and a variable
 * suffix as they are, with room for a gateway's own account ids (a connected account's `acct_1AbC…`,
 * a seller's numeric id).
 */
export const ACCOUNT_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

export const isAccountName = (name: string): boolean => ACCOUNT_NAME_PATTERN.test(name);

/**
 * The suffix of an account's variables: its name upper-cased, `.` and `-` as `_`
 * (`loja-a` -> `LOJA_A`, so `WEBHOOK_SECRET_<PROVIDER>_LOJA_A`).
 */
export const accountVariableSuffix = (name: string): string => name.toUpperCase().replace(/[.-]/g, "_");
