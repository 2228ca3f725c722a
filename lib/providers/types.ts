import { z } from "zod";
import type { SenderVocabulary } from "./sender-vocabulary";
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

export type VerifyContext = {
  secrets: string[];
  nowSeconds: number;
  toleranceSeconds: number;
  query: URLSearchParams;
  /** The sender's published public keys by `kid` (asymmetric signatures); throws when they can't be had. */
  publicKeys?: (kid: string) => Promise<JsonWebKey | null>;
  /** Which of the driver's signature schemes this deployment accepts (drivers with several). */
  schemes?: readonly string[];
};

/**
 * `nonce`: what the signature makes unique besides the body (Mercado Pago's request id and
 * timestamp), when the body itself is not signed: ingest remembers it within the tolerance, so a
 * captured signature can't carry another body.
 */
export type VerifyResult = { ok: true; nonce?: string } | { ok: false; reason: string };

export type ParseContext = {
  headers: HeaderMap;
  query: URLSearchParams;
  timeZone: string;
  /** The sender's own words, where a deployment mapped them (Standard Webhooks senders). */
  vocabulary?: SenderVocabulary;
};

export class ParseError extends Error {
  override name = "ParseError";
}

/** The refetch client's view of a gateway API; lib/http supplies it (timeouts, limits, breaker). */
export type GatewayFetch = (path: string) => Promise<unknown>;

/** What an operator configures for a gateway's API (`<PROVIDER>_API_KEY`, `ZOOP_MARKETPLACE_ID`). */
export type ApiCredentials = { apiKey?: string; marketplaceId?: string };
export type ApiCredential = keyof ApiCredentials;

/** What a refetch may need beyond the resource: the API credentials, and a sender's own words. */
export type RefetchContext = { credentials?: ApiCredentials; vocabulary?: SenderVocabulary; timeZone?: string };

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

export interface ProviderDriver<Name extends string = string> {
  /** The `{provider}` in `/api/webhooks/{provider}`, and the upper-cased stem of its variables. */
  readonly name: Name;
  readonly defaults: GatewayDefaults;
  /** Variables besides WEBHOOK_SECRET_<PROVIDER> that, set, turn the gateway on (a scheme needing no shared secret). */
  readonly enabledBy?: readonly string[];
  /** Headers kept with the event so it can be re-verified and inspected. */
  readonly keptHeaders: readonly string[];
  /** Headers that carry a credential: stored and shown as "[redacted]". */
  readonly secretHeaders: readonly string[];
  /** Query parameters that carry a credential: stored as "[redacted]". */
  readonly secretQueryParams?: readonly string[];
  verify(raw: Buffer, headers: HeaderMap, context: VerifyContext): VerifyResult | Promise<VerifyResult>;
  /** Throws ParseError when the body is not a well-formed event of this gateway. */
  parse(raw: Buffer, context: ParseContext): NormalizedEvent;
  /** How its API authenticates refetches; the transport (lib/http) sends what this builds. */
  readonly apiAuth?: ApiAuth;
  /** Its bodies are notices only: every charge event needs a refetch, whatever REFETCH_<PROVIDER> says. */
  readonly noticeOnly?: boolean;
  /** GETs the charge from the gateway and maps it; absent when the gateway offers nothing to fetch. */
  refetch?(resourceId: string, fetchJson: GatewayFetch, context?: RefetchContext): Promise<ChargeSnapshot>;
  /** Its list API, for reconciliation; absent when the gateway documents none we can use. */
  readonly lister?: GatewayLister;
}

/** A driver whose verification needs nothing but its secrets: it answers at once. */
export type SyncVerifyingDriver<Name extends string = string> = Omit<ProviderDriver<Name>, "verify"> & {
  verify(raw: Buffer, headers: HeaderMap, context: VerifyContext): VerifyResult;
};
