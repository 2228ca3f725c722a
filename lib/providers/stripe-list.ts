import { z } from "zod";
import { parseWith } from "./parse-helpers";
import { ParseError, type GatewayFetch, type GatewayLister } from "./types";

// Stripe's events list, for reconciliation (docs.stripe.com/api/events/list; Stripe's own guide
// docs.stripe.com/webhooks/process-undelivered-events): `GET /v1/events` with `created[gte]`,
// `created[lt]`, up to 20 exact `types[]`, `limit` 1..100, newest first, `has_more` and
// `starting_after=<last id>` for the next (older) page. Events are kept 30 days, each rendered in
// the API version of its creation, exactly as a webhook carries it. Bearer secret key (the driver's
// apiAuth); a connected account's events are listed with the platform's key and `Stripe-Account`
// (docs.stripe.com/connect/authentication).

/** The event types the driver maps (charge, dispute, refund via charge.refunded, payment intent). */
export const STRIPE_LISTED_TYPES = [
  "charge.pending",
  "charge.succeeded",
  "charge.captured",
  "charge.failed",
  "charge.expired",
  "charge.refunded",
  "charge.dispute.created",
  "charge.dispute.updated",
  "charge.dispute.closed",
  "charge.dispute.funds_withdrawn",
  "charge.dispute.funds_reinstated",
  "payment_intent.processing",
  "payment_intent.amount_capturable_updated",
  "payment_intent.succeeded",
  "payment_intent.payment_failed",
  "payment_intent.canceled",
] as const;

const eventListSchema = z.object({
  data: z.array(z.looseObject({ id: z.string().min(1) })),
  has_more: z.boolean(),
});

/** The platform's reads of a connected account's objects carry `Stripe-Account: acct_…` (none: its own). */
export function asAccount(platformFetch: GatewayFetch, account: string | undefined): GatewayFetch {
  return account ? (path) => platformFetch(path, { "Stripe-Account": account }) : platformFetch;
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

export const stripeLister: GatewayLister = {
  kind: "events",
  retentionDays: 30,
  async listPage(platformFetch, { since, until, pageToken, pageSize }, context) {
    const fetchJson = asAccount(platformFetch, context?.account);
    const query = new URLSearchParams({
      "created[gte]": String(seconds(since)),
      "created[lt]": String(seconds(until)),
      limit: String(Math.min(pageSize, 100)),
    });
    for (const type of STRIPE_LISTED_TYPES) query.append("types[]", type);
    if (pageToken) query.set("starting_after", pageToken);
    const list = parseWith(eventListSchema, await fetchJson(`/v1/events?${query}`), "not a Stripe list of events");
    const last = list.data.at(-1)?.id;
    // Nothing to continue from: asking again would loop. The run stops here; the next one asks again.
    if (list.has_more && !last) throw new ParseError("Stripe answered an empty page with has_more: no event to continue after");
    return {
      items: list.data.map((event) => ({ kind: "event" as const, eventId: event.id, body: event })),
      nextPageToken: list.has_more ? last! : null,
    };
  },
};
