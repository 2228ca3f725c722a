import { z } from "zod";
import type { PersonalDataPath } from "./personal-data";
import { PRECISIONS, chargeSnapshotSchema, type ChargeSnapshot } from "../canonical/charge-event";

/** A webhook after its driver parsed it; validated before it is stored. */
export const normalizedEventSchema = z.object({
  eventId: z.string().min(1).max(150),
  eventIdDerived: z.boolean(),
  type: z.string().min(1).max(80),
  resourceId: z.string().min(1).max(150).nullable(),
  /** ISO-8601 UTC with as many fractional digits as the gateway gave (Dates stop at milliseconds). */
  occurredAt: z.iso.datetime({ offset: true }).nullable(),
  precision: z.enum(PRECISIONS).nullable(),
  customerId: z.string().max(150).nullable(),
  customerEmail: z.string().max(320).nullable(),
  /** The charge state this event reports, or null for event types that don't move a payment. */
  charge: chargeSnapshotSchema.nullable(),
  /**
   * The body is only a notice that the charge changed (Mercado Pago, Zoop...): its state must be
   * fetched from the gateway whatever the refetch configuration says.
   */
  refetchRequired: z.boolean().default(false),
  /** The parsed body, stored as jsonb for search and display (the raw bytes are kept too). */
  payload: z.unknown(),
});
export type NormalizedEvent = z.infer<typeof normalizedEventSchema>;

/** Request headers, names lower-cased. */
export type HeaderMap = Record<string, string>;

export type VerifyContext<Settings = unknown> = {
  secrets: string[];
  nowSeconds: number;
  toleranceSeconds: number;
  query: URLSearchParams;
  /** The keys `verification.publishedKeys` names, by `kid` (asymmetric signatures); throws when they can't be had. */
  publicKeys?: (kid: string) => Promise<JsonWebKey | null>;
  /** The driver's own settings (ProviderDriver.settings), as this deployment configured them. */
  settings?: Settings;
};

/**
 * `nonce`: what the signature makes unique besides the body (a signed request id and timestamp),
 * when the body itself is not signed. Returning one is how a driver asks for the nonce store: ingest
 * remembers it within the tolerance, so a captured signature can't carry another body.
 */
export type VerifyResult = { ok: true; nonce?: string } | { ok: false; reason: string };

export type ParseContext<Settings = unknown> = {
  headers: HeaderMap;
  query: URLSearchParams;
  timeZone: string;
  /** The driver's own settings (a sender's own words, where a deployment mapped them). */
  settings?: Settings;
};

export class ParseError extends Error {
  override name = "ParseError";
}

/**
 * The refetch client's view of a gateway API; lib/http supplies it (timeouts, limits, breaker).
 * `headers` are the driver's own for this one request (which account it reads), sent beside the
 * gateway's authentication.
 */
export type GatewayFetch = (path: string, headers?: Record<string, string>) => Promise<unknown>;

/** What an operator configures for a gateway's API (`<PROVIDER>_API_KEY`, `<PROVIDER>_MARKETPLACE_ID`). */
export type ApiCredentials = { apiKey?: string; marketplaceId?: string };
export type ApiCredential = keyof ApiCredentials;

/**
 * What a refetch may need beyond the resource: the API credentials, the driver's own settings, and
 * the type of the event it is fetched for (none for reconciliation): what the notice said happened,
 * which the charge's current state may no longer show.
 */
export type RefetchContext<Settings = unknown> = {
  credentials?: ApiCredentials;
  settings?: Settings;
  timeZone?: string;
  eventType?: string;
  /** The gateway account the resource lives in, when not the one the credentials own (accountOf). */
  account?: string;
};

/**
 * How a gateway's API authenticates: the credentials it reads (each from `<PROVIDER>_<CREDENTIAL>`,
 * see credentialVariable), those it cannot do without, and the headers they make.
 */
export type ApiAuth = {
  uses: readonly ApiCredential[];
  needs: readonly ApiCredential[];
  headers(credentials: ApiCredentials): Record<string, string>;
};

/** One page of a gateway's list API: a window of time and where in it to continue (null: its start). */
export type ListRequest = { since: Date; until: Date; pageToken: string | null; pageSize: number };

/** What a gateway's list API returned, item by item. */
export type ListedItem =
  /** An event exactly as the gateway sends it: its own id is the inbox key. */
  | { kind: "event"; eventId: string; body: unknown }
  /** A charge's current state, from gateways without an events API. */
  | { kind: "resource"; resourceId: string; gatewayStatus: string; updatedAt: string | null; snapshot: ChargeSnapshot; body: unknown }
  /** A listed object the driver cannot read (an unknown status): counted as an error, the rest goes on. */
  | { kind: "unreadable"; resourceId: string | null; error: string };

export type ListPage = { items: ListedItem[]; nextPageToken: string | null };

/** A gateway's documented list API, for reconciliation; lib/http supplies the authenticated transport. */
export type GatewayLister = {
  /** events: the gateway lists its events (missing ones are ingested); resources: its charges and their state. */
  readonly kind: "events" | "resources";
  /** How far back the list goes (Stripe keeps 30 days of events); a window older than that is clipped. */
  readonly retentionDays?: number;
  listPage(fetchJson: GatewayFetch, request: ListRequest, context?: RefetchContext): Promise<ListPage>;
};

/**
 * What a gateway is unless the deployment says otherwise; lib/config reads these through the registry
 * as the defaults of REFETCH_<PROVIDER>, PAYMENT_SOURCE_<PROVIDER>, <PROVIDER>_TIMEZONE and
 * <PROVIDER>_API_URL.
 */
export type GatewayDefaults = {
  /**
   * Event types whose state is fetched from the gateway's API before it is applied (comma-separated
   * patterns, `*` any run of characters; "" none). Weakly authenticated gateways refetch everything.
   */
  refetch: string;
  /** "gateway": its events create the payment they describe; "host": the host application registers it first. */
  paymentSource: "gateway" | "host";
  /** IANA zone of the local times without an offset in its bodies. */
  timeZone: string;
  /** Its API's base URL; none when there is no one API (a Standard Webhooks sender's is its own). */
  apiUrl?: string;
};

/**
 * A driver's own variables, beyond the ones every gateway has: a zod object keyed by each variable's
 * full name (the names are a documented contract, docs/configuration.md), piped into the settings the
 * driver is handed in verify, parse and refetch. lib/config validates them with every other variable.
 */
export type SettingsSchema<Settings = unknown> = z.ZodPipe<z.ZodObject, z.ZodType<Settings>>;

/** Where a gateway publishes its signing keys (a JWKS), and how long a fetched set is used. */
export type PublishedKeys = { url: string; ttlSeconds: number };

/** What a driver's verification needs beyond its secrets; the pipeline provides each the same way for every driver. */
export type VerificationNeeds<Settings = unknown> = {
  /** Its signatures are checked against keys it publishes: where, from its settings. */
  publishedKeys?(settings: Settings): PublishedKeys;
  /**
   * The key a configured secret stands for, when it is not the text itself (`whsec_` and base64):
   * production measures a secret's strength on it.
   */
  secretKey?(secret: string): Buffer;
};

export interface ProviderDriver<Name extends string = string, Settings = unknown> {
  /** The `{provider}` in `/api/webhooks/{provider}`, and the upper-cased stem of its variables. */
  readonly name: Name;
  /** How people write its name (the console and the docs show it). */
  readonly label: string;
  readonly defaults: GatewayDefaults;
  /** Its own variables and the settings they make; none when the variables every gateway has are enough. */
  readonly settings?: SettingsSchema<Settings>;
  /** What verification needs beyond its secrets (WEBHOOK_SECRET_<PROVIDER>). */
  readonly verification?: VerificationNeeds<Settings>;
  /** Variables besides WEBHOOK_SECRET_<PROVIDER> that, set, turn the gateway on (a scheme needing no shared secret). */
  readonly enabledBy?: readonly string[];
  /**
   * What turns its webhooks on, as an operator reads it in the log ("set ... to ..."), naming the
   * variables it really needs; absent, enableHint says to set WEBHOOK_SECRET_<PROVIDER>.
   */
  readonly enableWith?: string;
  /** The public development secret .env.example ships for it: production refuses to start with it anywhere. */
  readonly exampleSecret?: string;
  /** Headers kept with the event so it can be re-verified and inspected. */
  readonly keptHeaders: readonly string[];
  /** Headers that carry a credential: stored and shown as "[redacted]". */
  readonly secretHeaders: readonly string[];
  /** Query parameters that carry a credential: stored as "[redacted]". */
  readonly secretQueryParams?: readonly string[];
  /**
   * Where its bodies carry a person (name, e-mail, document, phone, address, birth date): what an
   * erasure and PII_AT_REST=redact replace (lib/providers/personal-data.ts). The customer id is not one.
   */
  readonly personalData: readonly PersonalDataPath[];
  verify(raw: Buffer, headers: HeaderMap, context: VerifyContext<Settings>): VerifyResult | Promise<VerifyResult>;
  /** Throws ParseError when the body is not a well-formed event of this gateway. */
  parse(raw: Buffer, context: ParseContext<Settings>): NormalizedEvent;
  /** How its API authenticates refetches; the transport (lib/http) sends what this builds. */
  readonly apiAuth?: ApiAuth;
  /** Its bodies are notices only: every charge event needs a refetch, whatever REFETCH_<PROVIDER> says. */
  readonly noticeOnly?: boolean;
  /**
   * The account an event comes from, read from its parsed body (NormalizedEvent.payload, the stored
   * `payload`), when the gateway delivers other accounts' events to this one's endpoint (a Stripe
   * Connect platform's); null for the credentials' own. Read again from the stored event by every
   * processing attempt, replay and stuck-payment refetch; the refetch is handed it.
   */
  accountOf?(payload: unknown): string | null;
  /**
   * Its API reads another account's objects with the default account's credentials when told which
   * (RefetchContext.account; Stripe Connect's `Stripe-Account`): an account registered without
   * credentials of its own can then be reconciled.
   */
  readonly readsOtherAccounts?: boolean;
  /** GETs the charge from the gateway and maps it; absent when the gateway offers nothing to fetch. */
  refetch?(resourceId: string, fetchJson: GatewayFetch, context?: RefetchContext<Settings>): Promise<ChargeSnapshot>;
  /** Its list API, for reconciliation; absent when the gateway documents none we can use. */
  readonly lister?: GatewayLister;
}

/** A driver whose verification needs nothing but its secrets: it answers at once. */
export type SyncVerifyingDriver<Name extends string = string, Settings = unknown> = Omit<ProviderDriver<Name, Settings>, "verify"> & {
  verify(raw: Buffer, headers: HeaderMap, context: VerifyContext<Settings>): VerifyResult;
};
