import {
  webhookFor,
  webhooksFor,
  signedWebhook,
  type PaymentFacts,
  type SignedWebhook,
  type SigningSecret,
  type SimulatedProvider,
} from "@/lib/testing/gateway-events";
import { historyAsOf, seededRandom, type PaymentHistory } from "./history";
import type { ListedStripeEvent } from "./fake-gateway";

// Turning histories into webhooks the way a real gateway would: every step once, some of them
// again (resends), in an order that can be shuffled, several at a time, retried until acknowledged.

export type WebhookPlanOptions = {
  secrets: Partial<Record<string, SigningSecret>>;
  /** Probability that an event is sent one more time (repeatedly: 0.3 gives ~43% extra). */
  duplicateRate: number;
  /** none: history order; payment: payments interleaved, each in order; full: any order at all. */
  shuffle: "none" | "payment" | "full";
  seed: number;
};

/** A webhook, the payment it is about and the step of its history it reports. */
export type PlannedWebhook = SignedWebhook & { chargeId: string; step: number };

export function planWebhooks(histories: PaymentHistory[], options: WebhookPlanOptions): PlannedWebhook[] {
  const random = seededRandom(options.seed);
  const perPayment = histories.map((history) =>
    history.steps.flatMap((step, index) => {
      const secret = options.secrets[history.provider]!;
      const refundedBefore = history.steps[index - 1]?.amountRefunded ?? 0;
      return webhooksFor(history.provider, history.payment, step, secret, refundedBefore).flatMap((first) => {
        const copies: PlannedWebhook[] = [{ ...first, chargeId: history.payment.chargeId, step: index }];
        while (random() < options.duplicateRate) copies.push({ ...first, chargeId: history.payment.chargeId, step: index });
        return copies;
      });
    }),
  );
  if (options.shuffle === "none") return perPayment.flat();
  if (options.shuffle === "payment") {
    const queues = perPayment.map((webhooks) => [...webhooks]);
    const plan: PlannedWebhook[] = [];
    while (queues.some((queue) => queue.length > 0)) {
      const open = queues.filter((queue) => queue.length > 0);
      plan.push(open[Math.floor(random() * open.length)]!.shift()!);
    }
    return plan;
  }
  const all = perPayment.flat();
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return all;
}

/**
 * A gateway that never sent some events (a changed endpoint, an outage past its retries): each
 * distinct event is withheld, every copy of it, with probability `rate` (seeded). The withheld ones
 * are what reconciliation must find.
 */
export function withholdWebhooks(
  plan: PlannedWebhook[],
  rate: number,
  seed: number,
): { toSend: PlannedWebhook[]; withheld: PlannedWebhook[] } {
  const random = seededRandom(seed ^ 0x5eed);
  const dropped = new Set<string>();
  for (const eventId of new Set(plan.map((webhook) => `${webhook.provider}:${webhook.eventId}`))) if (random() < rate) dropped.add(eventId);
  const isDropped = (webhook: PlannedWebhook) => dropped.has(`${webhook.provider}:${webhook.eventId}`);
  const withheld = new Map(plan.filter(isDropped).map((webhook) => [`${webhook.provider}:${webhook.eventId}`, webhook]));
  return { toSend: plan.filter((webhook) => !isDropped(webhook)), withheld: [...withheld.values()] };
}

/**
 * Each payment as the gateway shows it while the withheld notices were due: up to the last step it
 * did send (its API then changes on, without telling). Payments with nothing sent are left out.
 */
export function historiesAsSent(histories: PaymentHistory[], sent: PlannedWebhook[]): PaymentHistory[] {
  const lastStep = new Map<string, number>();
  for (const webhook of sent) lastStep.set(webhook.chargeId, Math.max(lastStep.get(webhook.chargeId) ?? 0, webhook.step));
  return histories.flatMap((history) => {
    const step = lastStep.get(history.payment.chargeId);
    return step === undefined ? [] : [historyAsOf(history, step)];
  });
}

/** The Stripe events of a plan (sent or not), for the fake gateway's events list. */
export function stripeEventsOf(plan: PlannedWebhook[]): ListedStripeEvent[] {
  const events = new Map<string, ListedStripeEvent>();
  for (const webhook of plan) if (webhook.provider === "stripe") events.set(webhook.eventId, JSON.parse(webhook.body) as ListedStripeEvent);
  return [...events.values()];
}

/** The app's answer; `body` (its start) says why when it refused, status 0 when nothing answered. */
export type SendResult = { status: number; body?: string };
export type Sender = (webhook: SignedWebhook) => Promise<SendResult>;

/** Where a gateway posts a webhook on a running app: {baseUrl}/api/webhooks/{provider}, with any query it signs. */
export function webhookUrl(baseUrl: string, webhook: SignedWebhook, account?: string): string {
  const query = webhook.query ? `?${webhook.query}` : "";
  const path = account === undefined ? webhook.provider : `${webhook.provider}/${encodeURIComponent(account)}`;
  return `${baseUrl.replace(/\/+$/, "")}/api/webhooks/${path}${query}`;
}

/** Delivers a signed webhook to a running app over HTTP, as its gateway would (to one of its accounts' URLs when named). */
export function postWebhook(baseUrl: string, webhook: SignedWebhook, account?: string): Promise<Response> {
  return fetch(webhookUrl(baseUrl, webhook, account), { method: "POST", headers: webhook.headers, body: webhook.body });
}

/** The gateway's notice that this payment succeeded a second ago, signed with `secret` and delivered (postWebhook). */
export function postSucceeded(baseUrl: string, provider: SimulatedProvider, facts: PaymentFacts, secret: SigningSecret): Promise<Response> {
  return postWebhook(
    baseUrl,
    webhookFor(provider, facts, { kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() - 1000 }, secret),
  );
}

/** An HTTP sender to a running app (postWebhook, to that account's URL when named), reading each answer to its end. */
export function httpSender(baseUrl: string, account?: string): Sender {
  return async (webhook) => {
    const response = await postWebhook(baseUrl, webhook, account);
    const body = await response.text();
    return response.ok ? { status: response.status } : { status: response.status, body: body.slice(0, 500) };
  };
}

/** Refused answers of one kind (a gateway, a status, the app's error code), with one of them as it came. */
export type Refusal = {
  provider: string;
  status: number;
  /** The app's `code` (INVALID_SIGNATURE, NOT_CONFIGURED...), or null when the body had none. */
  code: string | null;
  /** The app's `error`, the body itself, or why nothing answered. */
  error: string;
  /** Answers of this kind, retries included. */
  answers: number;
  /** Webhooks whose last try got this answer: given up on. */
  gaveUp: number;
};

export type SendReport = { sent: number; acknowledged: number; retries: number; failed: number; ms: number; refusals: Refusal[] };

function refusalOf(provider: string, result: SendResult): Omit<Refusal, "answers" | "gaveUp"> {
  const body = result.body ?? "";
  let parsed: { error?: unknown; code?: unknown } | null = null;
  try {
    parsed = JSON.parse(body) as { error?: unknown; code?: unknown };
  } catch {
    // not JSON: the body is the reason
  }
  return {
    provider,
    status: result.status,
    code: typeof parsed?.code === "string" ? parsed.code : null,
    error: typeof parsed?.error === "string" ? parsed.error : body || (result.status === 0 ? "no answer" : "empty body"),
  };
}

/**
 * Sends every planned webhook with `concurrency` senders. Like a gateway, a webhook that is not
 * answered 2xx is retried (re-signed, since signatures expire) up to `maxTries` times.
 */
export async function sendAll(
  plan: PlannedWebhook[],
  send: Sender,
  options: { concurrency: number; maxDelayMs?: number; maxTries?: number; secrets: Partial<Record<string, SigningSecret>> },
): Promise<SendReport> {
  const started = Date.now();
  const report: SendReport = { sent: 0, acknowledged: 0, retries: 0, failed: 0, ms: 0, refusals: [] };
  const refusals = new Map<string, Refusal>();
  const refused = (provider: string, result: SendResult, last: boolean) => {
    const refusal = refusalOf(provider, result);
    const key = `${provider} ${refusal.status} ${refusal.code ?? refusal.error}`;
    const kind = refusals.get(key) ?? { ...refusal, answers: 0, gaveUp: 0 };
    refusals.set(key, { ...kind, answers: kind.answers + 1, gaveUp: kind.gaveUp + (last ? 1 : 0) });
  };
  let next = 0;
  const maxTries = options.maxTries ?? 5;
  async function sender() {
    for (;;) {
      const index = next++;
      const planned = plan[index];
      if (!planned) return;
      if (options.maxDelayMs) await new Promise((done) => setTimeout(done, Math.random() * options.maxDelayMs!));
      for (let attempt = 1; ; attempt++) {
        const webhook =
          attempt === 1 ? planned : signedWebhook(planned.provider, planned.eventId, planned.body, options.secrets[planned.provider]!);
        report.sent++;
        const result = await send(webhook).catch((error: unknown) => ({ status: 0, body: unanswered(error) }));
        if (result.status >= 200 && result.status < 300) {
          report.acknowledged++;
          break;
        }
        refused(planned.provider, result, attempt >= maxTries);
        if (attempt >= maxTries) {
          report.failed++;
          break;
        }
        report.retries++;
        await new Promise((done) => setTimeout(done, 100 * attempt));
      }
    }
  }
  await Promise.all(Array.from({ length: options.concurrency }, sender));
  report.ms = Date.now() - started;
  report.refusals = [...refusals.values()].sort((a, b) => b.answers - a.answers);
  return report;
}

/** Why a request got no answer at all (fetch's cause: ECONNREFUSED, a reset...). */
function unanswered(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

export type PaymentReading = { status: string; amountRefunded: number } | null;

export type CheckReport = { payments: number; matched: number; mismatches: { chargeId: string; expected: string; actual: string }[] };

/** Compares each payment's final state in the app with the simulator's truth. */
export async function checkFinalStates(
  histories: PaymentHistory[],
  read: (history: PaymentHistory) => Promise<PaymentReading>,
): Promise<CheckReport> {
  const report: CheckReport = { payments: histories.length, matched: 0, mismatches: [] };
  for (const history of histories) {
    const actual = await read(history);
    const expected = `${history.truth.status}/${history.truth.amountRefunded}`;
    const seen = actual ? `${actual.status}/${actual.amountRefunded}` : "missing";
    if (seen === expected) report.matched++;
    else report.mismatches.push({ chargeId: history.payment.chargeId, expected, actual: seen });
  }
  return report;
}
