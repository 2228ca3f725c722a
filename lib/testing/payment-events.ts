import { webhookFor, randomId, type HistoryStep, type PaymentFacts } from "./gateway-events";
import type { AppConfig } from "../config/env";
import { ingestEvent } from "../inbox/ingest/ingest-event";
import { createGatewayClients } from "../http/gateway-clients";
import { processEvents, type ProcessDeps } from "../inbox/process/process-event";
import { TEST_SECRETS, type TestApp } from "./test-app";

/** A fresh Stripe payment's facts. */
export const stripePayment = (): PaymentFacts => ({
  chargeId: randomId("ch"),
  amount: 1000,
  currency: "usd",
  customerId: "cus_7",
  customerEmail: "Ana@Example.com",
});

/** What processing needs on a test app (a config variant, if given). */
export function processDeps(app: TestApp, config: AppConfig = app.config): ProcessDeps {
  return { pool: app.pool, boss: app.boss, config, gateways: createGatewayClients(config), workerId: "test" };
}

/** Ingests one signed Stripe event of `payment` (not processed yet). */
export async function ingestStripeStep(
  app: TestApp,
  payment: PaymentFacts,
  step: Pick<HistoryStep, "kind"> & Partial<HistoryStep>,
  config: AppConfig = app.config,
): Promise<{ inboxId: number; eventId: string }> {
  const webhook = webhookFor("stripe", payment, { amountRefunded: 0, occurredAtMs: Date.now() - 60_000, ...step }, TEST_SECRETS.stripe);
  const outcome = await ingestEvent(
    { pool: app.pool, boss: app.boss, config },
    { provider: "stripe", rawBody: Buffer.from(webhook.body), headers: webhook.headers },
  );
  if (outcome.kind !== "stored") throw new Error(`not stored: ${outcome.kind}`);
  return { inboxId: outcome.inboxId, eventId: webhook.eventId };
}

/** Ingests and processes one Stripe event of `payment`; returns the outcome. */
export async function changeStripePayment(
  app: TestApp,
  deps: ProcessDeps,
  payment: PaymentFacts,
  step: Pick<HistoryStep, "kind"> & Partial<HistoryStep>,
) {
  const { inboxId } = await ingestStripeStep(app, payment, step, deps.config);
  return (await processEvents(deps, [inboxId]))[0];
}
