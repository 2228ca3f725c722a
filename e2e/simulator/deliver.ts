import { deliveriesFor, signedDelivery, type Delivery, type DeliverySecret } from "@/lib/testing/gateway-events";
import { historyAsOf, seededRandom, type PaymentHistory } from "./history";
import type { ListedStripeEvent } from "./fake-gateway";

// Turning histories into deliveries the way a real gateway would: every step once, some of them
// again (resends), in an order that can be shuffled, several at a time, retried until acknowledged.

export type DeliveryPlanOptions = {
  secrets: Partial<Record<string, DeliverySecret>>;
  /** Probability that an event is delivered one more time (repeatedly: 0.3 gives ~43% extra). */
  duplicateRate: number;
  /** none: history order; payment: payments interleaved, each in order; full: any order at all. */
  shuffle: "none" | "payment" | "full";
  seed: number;
};

/** A delivery, the payment it is about and the step of its history it reports. */
export type PlannedDelivery = Delivery & { chargeId: string; step: number };

export function planDeliveries(histories: PaymentHistory[], options: DeliveryPlanOptions): PlannedDelivery[] {
  const random = seededRandom(options.seed);
  const perPayment = histories.map((history) =>
    history.steps.flatMap((step, index) => {
      const secret = options.secrets[history.provider]!;
      const refundedBefore = history.steps[index - 1]?.amountRefunded ?? 0;
      return deliveriesFor(history.provider, history.payment, step, secret, refundedBefore).flatMap((first) => {
        const copies: PlannedDelivery[] = [{ ...first, chargeId: history.payment.chargeId, step: index }];
        while (random() < options.duplicateRate) copies.push({ ...first, chargeId: history.payment.chargeId, step: index });
        return copies;
      });
    }),
  );
  if (options.shuffle === "none") return perPayment.flat();
  if (options.shuffle === "payment") {
    const queues = perPayment.map((deliveries) => [...deliveries]);
    const plan: PlannedDelivery[] = [];
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
 * A gateway that never delivered some events (a changed endpoint, an outage past its retries): each
 * distinct event is withheld, every copy of it, with probability `rate` (seeded). The withheld ones
 * are what reconciliation must find.
 */
export function withholdDeliveries(
  plan: PlannedDelivery[],
  rate: number,
  seed: number,
): { delivered: PlannedDelivery[]; withheld: PlannedDelivery[] } {
  const random = seededRandom(seed ^ 0x5eed);
  const dropped = new Set<string>();
  for (const eventId of new Set(plan.map((delivery) => `${delivery.provider}:${delivery.eventId}`)))
    if (random() < rate) dropped.add(eventId);
  const isDropped = (delivery: PlannedDelivery) => dropped.has(`${delivery.provider}:${delivery.eventId}`);
  const withheld = new Map(plan.filter(isDropped).map((delivery) => [`${delivery.provider}:${delivery.eventId}`, delivery]));
  return { delivered: plan.filter((delivery) => !isDropped(delivery)), withheld: [...withheld.values()] };
}

/**
 * Each payment as the gateway shows it while the withheld notices were due: up to the last step it
 * did deliver (its API then changes on, without telling). Payments with nothing delivered are left out.
 */
export function historiesAsDelivered(histories: PaymentHistory[], delivered: PlannedDelivery[]): PaymentHistory[] {
  const lastStep = new Map<string, number>();
  for (const delivery of delivered) lastStep.set(delivery.chargeId, Math.max(lastStep.get(delivery.chargeId) ?? 0, delivery.step));
  return histories.flatMap((history) => {
    const step = lastStep.get(history.payment.chargeId);
    return step === undefined ? [] : [historyAsOf(history, step)];
  });
}

/** The Stripe events of a plan (delivered or not), for the fake gateway's events list. */
export function stripeEventsOf(plan: PlannedDelivery[]): ListedStripeEvent[] {
  const events = new Map<string, ListedStripeEvent>();
  for (const delivery of plan)
    if (delivery.provider === "stripe") events.set(delivery.eventId, JSON.parse(delivery.body) as ListedStripeEvent);
  return [...events.values()];
}

export type SendResult = { status: number };
export type Sender = (delivery: Delivery) => Promise<SendResult>;

/** An HTTP sender to a running app: POST {baseUrl}/api/webhooks/{provider}. */
export function httpSender(baseUrl: string): Sender {
  return async (delivery) => {
    const query = delivery.query ? `?${delivery.query}` : "";
    const response = await fetch(`${baseUrl.replace(/\/+$/, "")}/api/webhooks/${delivery.provider}${query}`, {
      method: "POST",
      headers: delivery.headers,
      body: delivery.body,
    });
    await response.arrayBuffer();
    return { status: response.status };
  };
}

export type DeliveryReport = { sent: number; acknowledged: number; retries: number; failed: number; ms: number };

/**
 * Sends every planned delivery with `concurrency` senders. Like a gateway, a delivery that is not
 * answered 2xx is retried (re-signed, since signatures expire) up to `maxTries` times.
 */
export async function deliverAll(
  plan: PlannedDelivery[],
  send: Sender,
  options: { concurrency: number; maxDelayMs?: number; maxTries?: number; secrets: Partial<Record<string, DeliverySecret>> },
): Promise<DeliveryReport> {
  const started = Date.now();
  const report: DeliveryReport = { sent: 0, acknowledged: 0, retries: 0, failed: 0, ms: 0 };
  let next = 0;
  const maxTries = options.maxTries ?? 5;
  async function sender() {
    for (;;) {
      const index = next++;
      const planned = plan[index];
      if (!planned) return;
      if (options.maxDelayMs) await new Promise((done) => setTimeout(done, Math.random() * options.maxDelayMs!));
      for (let attempt = 1; ; attempt++) {
        const delivery =
          attempt === 1 ? planned : signedDelivery(planned.provider, planned.eventId, planned.body, options.secrets[planned.provider]!);
        report.sent++;
        const result = await send(delivery).catch(() => ({ status: 0 }));
        if (result.status >= 200 && result.status < 300) {
          report.acknowledged++;
          break;
        }
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
  return report;
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
