import type { ChargeStatus } from "../../canonical/charge-event";
import type { Queryable } from "../../db/pool";
import { findDriver } from "../../providers/registry";
import { formatTime } from "../../time/format-time";
import { statusLabel as words } from "../../text/words";

// Why an event was ignored or failed, as a sentence built from stored facts: the event's own
// reason or error, what the event said about the charge (its stored bytes, parsed again), and the
// payment ledger's last change before the event was settled. The codes stay for filters.

/** The ledger's last change to the payment before this event was settled. */
export type PriorChange = { status: string; eventId: string | null; inboxId: number | null; at: Date; source: string };

export type OutcomeFacts = {
  status: string;
  eventType: string;
  resourceId: string | null;
  ignoredReason: string | null;
  lastError: string | null;
  /** What the event said the charge is, when its stored body still parses. */
  observed: ChargeStatus | null;
  prior: PriorChange | null;
};

const shortId = (id: string) => (id.length > 14 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id);

function by(prior: PriorChange, zone: string): string {
  const who = prior.eventId ? `by ${shortId(prior.eventId)}` : prior.source === "registration" ? "by your application's registration" : "";
  return `${who} at ${formatTime(prior.at, zone, { date: false })}`.trim();
}

function ignoredSentence(facts: OutcomeFacts, zone: string): string {
  const { prior, observed } = facts;
  const was = prior ? `the payment was already ${words(prior.status)} ${by(prior, zone)}` : "the payment had moved on";
  switch (facts.ignoredReason) {
    case "invalid_transition":
      return observed && prior
        ? `Ignored: ${was}; ${words(prior.status)} → ${words(observed)} is not allowed.`
        : `Ignored: ${was}; this event's status can't follow it.`;
    case "stale":
      return `Ignored: older than the last change applied (${was}); events apply in the gateway's order.`;
    case "duplicate_in_meaning":
      return `Ignored: ${prior ? was : "the payment was already in this state"}; this event repeats it.`;
    case "uninteresting_type":
      return `Ignored: ${facts.eventType} is not a type that changes a payment.`;
    case "no_resource":
      return "Ignored: the event names no charge to apply it to.";
    case "already_applied":
      return "Ignored: its effect is already in the payment's ledger.";
    case "charge_is_authority":
      return `Ignored: a PaymentIntent summary can't undo what the charge's own events said (${was}).`;
    default:
      return `Ignored: ${facts.ignoredReason ?? "no reason recorded"}.`;
  }
}

const FAILURES: { pattern: RegExp; sentence: (match: RegExpExecArray, facts: OutcomeFacts) => string }[] = [
  {
    pattern: /answered 404/,
    sentence: () => "Failed: the gateway answered 404 for the charge; replay once it exists there.",
  },
  {
    pattern: /answered (401|403)/,
    sentence: (match) => `Failed: the gateway refused our API key (${match[1]}); fix <PROVIDER>_API_KEY, then replay.`,
  },
  {
    pattern: /answered (429|5\d\d)/,
    sentence: (match) => `Failed: the gateway answered ${match[1]} (busy or down) on every try; replay when it is healthy.`,
  },
  {
    pattern: /not registered yet/,
    sentence: (_match, facts) =>
      `Failed: your application had not registered payment ${facts.resourceId ?? ""} when the retries ran out; replay once it is registered (POST /api/payments).`,
  },
  {
    pattern: /has no API to fetch from/,
    sentence: () =>
      "Failed: this event must be fetched from the gateway, but no API URL is configured for it; set <PROVIDER>_API_URL, then replay.",
  },
  {
    pattern: /CircuitOpenError|circuit/i,
    sentence: () => "Failed: the gateway kept failing, so calls to it were paused; replay when it is healthy.",
  },
  {
    pattern: /TimeoutError|timed? ?out|aborted/i,
    sentence: () => "Failed: the gateway did not answer in time on every try; replay when it responds.",
  },
  {
    pattern: /fetch failed|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ECONNRESET/,
    sentence: () => "Failed: the gateway could not be reached; check the network or its API URL, then replay.",
  },
  {
    pattern: /^ParseError: (.*)$|^(?!\w+Error:)(.*(?:not JSON|missing|expected|invalid).*)$/is,
    sentence: (match) =>
      `Failed: the stored body could not be read (${(match[1] ?? match[2] ?? "").slice(0, 160)}); replay after the driver is fixed.`,
  },
  {
    pattern: /gave up after (\d+) attempts/,
    sentence: (match) => `Failed: workers stopped during each of ${match[1]} attempts; replay to try again.`,
  },
  {
    pattern: /no driver for provider/,
    sentence: () => "Failed: no driver handles this provider any more; replay after it is configured.",
  },
];

function failedSentence(facts: OutcomeFacts): string {
  const error = facts.lastError ?? "";
  for (const failure of FAILURES) {
    const match = failure.pattern.exec(error);
    if (match) return failure.sentence(match, facts);
  }
  return error ? `Failed: ${error.slice(0, 200)}` : "Failed: no error was recorded.";
}

/** The sentence for an ignored or failed event (null for other statuses), times in `zone`. */
export function explainOutcome(facts: OutcomeFacts, zone: string): string | null {
  if (facts.status === "ignored") return ignoredSentence(facts, zone);
  if (facts.status === "failed") return failedSentence(facts);
  return null;
}

type FactsRow = {
  id: number;
  provider: string;
  status: string;
  eventType: string;
  resourceId: string | null;
  ignoredReason: string | null;
  lastError: string | null;
  rawBody: Buffer | null;
  headers: Record<string, string> | null;
  queryString: string | null;
  priorStatus: string | null;
  priorEventId: string | null;
  priorInboxId: number | null;
  priorAt: Date | null;
  priorSource: string | null;
};

/** What the stored bytes say the charge is, parsed by the same driver the worker uses. */
function observedStatus(row: FactsRow): ChargeStatus | null {
  const driver = findDriver(row.provider);
  if (!driver || !row.rawBody) return null;
  try {
    // The zone only shifts zone-less times; the status doesn't depend on it.
    return (
      driver.parse(row.rawBody, { headers: row.headers ?? {}, query: new URLSearchParams(row.queryString ?? ""), timeZone: "UTC" }).charge
        ?.status ?? null
    );
  } catch {
    return null;
  }
}

/** The facts behind the ignored and failed events among `ids` (other ids are left out). */
export async function loadOutcomeFacts(db: Queryable, ids: number[]): Promise<Map<number, OutcomeFacts>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<FactsRow>(
    `SELECT i.id, i.provider, i.status, i.event_type AS "eventType", i.resource_id AS "resourceId",
            i.ignored_reason AS "ignoredReason", i.last_error AS "lastError",
            CASE WHEN i.status = 'ignored' THEN i.raw_body END AS "rawBody", i.headers, i.query_string AS "queryString",
            prior.to_status AS "priorStatus", prior_event.event_id AS "priorEventId", prior_event.id AS "priorInboxId",
            COALESCE(prior_event.occurred_at, prior.applied_at) AS "priorAt", prior.source AS "priorSource"
       FROM webhook_inbox i
       LEFT JOIN payments p ON p.provider = i.provider AND p.gateway_charge_id = i.resource_id
       LEFT JOIN LATERAL (
         SELECT t.to_status, t.inbox_id, t.applied_at, t.source
           FROM payment_transitions t
          WHERE t.payment_id = p.id AND t.applied_at <= COALESCE(i.processed_at, now()) AND t.inbox_id IS DISTINCT FROM i.id
          ORDER BY t.applied_at DESC, t.id DESC
          LIMIT 1
       ) prior ON i.status = 'ignored'
       LEFT JOIN webhook_inbox prior_event ON prior_event.id = prior.inbox_id
      WHERE i.id = ANY($1::bigint[]) AND i.status IN ('ignored', 'failed')`,
    [ids],
  );
  return new Map(
    rows.map((row) => [
      row.id,
      {
        status: row.status,
        eventType: row.eventType,
        resourceId: row.resourceId,
        ignoredReason: row.ignoredReason,
        lastError: row.lastError,
        observed: row.status === "ignored" ? observedStatus(row) : null,
        prior:
          row.priorStatus && row.priorAt
            ? {
                status: row.priorStatus,
                eventId: row.priorEventId,
                inboxId: row.priorInboxId,
                at: row.priorAt,
                source: row.priorSource ?? "event",
              }
            : null,
      },
    ]),
  );
}

/** Sentences for the ignored and failed events among `ids`, by id. */
export async function explainOutcomes(db: Queryable, ids: number[], zone: string): Promise<Map<number, string>> {
  const facts = await loadOutcomeFacts(db, ids);
  return new Map([...facts].map(([id, fact]) => [id, explainOutcome(fact, zone) ?? ""]));
}
