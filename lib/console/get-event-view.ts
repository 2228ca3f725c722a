import { can, rolesWith, type Role } from "../auth/permissions";
import type { Queryable } from "../db/pool";
import { explainOutcome, loadOutcomeFacts } from "../inbox/queries/explain-outcome";
import { getEvent, listAttempts, resourceTimeline, type AttemptRow, type TimelineEntry } from "../inbox/queries/get-event";
import { replayHistory, type ReplayHistoryEntry } from "../inbox/replay/replay-history";
import { getPayment } from "../payments/get-payment";
import { shownCustomer, type ShownCustomer } from "../privacy/shown-customer";
import { maskAttempts, maskEvent, type MaskedEvent } from "../privacy/mask-for-role";

/** Everything the event page shows, as `role` may see it. */
export type EventPageView = {
  event: Omit<MaskedEvent, "customerEmail" | "rawBody"> & { raw: { text: string; encoding: "utf-8" | "base64"; bytes: number } | null };
  customer: ShownCustomer;
  /** Why it was ignored or failed, in words (a failure's words only for roles that see errors). */
  explanation: string | null;
  /** The event whose change made this one stale or not allowed, whole and linkable. */
  decidedBy: { id: number; eventId: string } | null;
  paymentId: number | null;
  attempts: AttemptRow[];
  replays: ReplayHistoryEntry[];
  timeline: TimelineEntry[];
  may: { replay: boolean; restore: boolean };
  /** For a role without Replay, on an event that a replay would take: who can replay it. */
  replayBy: string | null;
};

const ROLE_WORDS: Record<Role, string> = { viewer: "a viewer", support: "support", finance: "finance", admin: "an admin" };

/** "Your role can't replay events; finance or an admin can: send them this page's address." */
function whoReplays(): string {
  const roles = rolesWith("events.replay").map((role) => ROLE_WORDS[role]);
  const who = roles.length > 1 ? `${roles.slice(0, -1).join(", ")} or ${roles.at(-1)}` : (roles[0] ?? "nobody");
  return `Your role can't replay events; ${who} can: send them this page's address.`;
}

/** The raw body as text when it is UTF-8 (as webhooks are), else base64, said so. */
function rawText(raw: Buffer): { text: string; encoding: "utf-8" | "base64"; bytes: number } {
  const text = raw.toString("utf8");
  const utf8 = Buffer.from(text, "utf8").equals(raw);
  return { text: utf8 ? text : raw.toString("base64"), encoding: utf8 ? "utf-8" : "base64", bytes: raw.length };
}

/** One event with its attempts, replays, payment timeline and outcome; null when there is no such event. */
export async function getEventView(db: Queryable, role: Role, id: number, zone: string): Promise<EventPageView | null> {
  const stored = await getEvent(db, id);
  if (!stored) return null;
  const unmasked = can(role, "payload.unmasked");
  const { customerEmail: _masked, rawBody, ...event } = maskEvent(role, stored);
  const [attempts, timeline, payment, replays, facts] = await Promise.all([
    listAttempts(db, id),
    stored.resourceId ? resourceTimeline(db, stored.provider, stored.resourceId) : Promise.resolve([]),
    stored.resourceId ? getPayment(db, stored.provider, stored.resourceId) : Promise.resolve(null),
    replayHistory(db, id),
    loadOutcomeFacts(db, [id]),
  ]);
  const fact = facts.get(id);
  // A failure's sentence quotes its error, which a masked role sees only as a category.
  const explanation = fact && (unmasked || stored.status === "ignored") ? explainOutcome(fact, zone) : null;
  const prior = stored.status === "ignored" ? fact?.prior : undefined;
  return {
    event: { ...event, raw: rawBody ? rawText(rawBody) : null },
    // shownCustomer is where an e-mail is masked for the role; a dispute names none, its payment does.
    customer: shownCustomer(stored.customerEmail ?? payment?.customerEmail ?? null, unmasked),
    explanation,
    decidedBy: prior?.inboxId && prior.eventId ? { id: prior.inboxId, eventId: prior.eventId } : null,
    paymentId: payment?.id ?? null,
    attempts: maskAttempts(role, attempts),
    replays,
    timeline,
    may: { replay: can(role, "events.replay"), restore: can(role, "payload.restore") },
    replayBy: !can(role, "events.replay") && (stored.status === "failed" || stored.status === "ignored") ? whoReplays() : null,
  };
}
