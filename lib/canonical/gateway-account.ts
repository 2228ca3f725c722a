/**
 * The account of a gateway that every installation had before accounts existed: what
 * `/api/webhooks/{provider}` receives for, and what an event names when neither its URL nor its body
 * names another. Stored as is in every `gateway_account` column (their default).
 */
export const DEFAULT_ACCOUNT = "default";
