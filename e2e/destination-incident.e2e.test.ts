import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/lib/db/embedded";
import { createDestination } from "@/lib/destinations/manage-destinations";
import { webhookFor, randomId } from "@/lib/testing/gateway-events";
import { TEST_SECRETS } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import { toZonedInput } from "@/lib/time/format-time";
import { horizontalOverflow, rendered, screenshot } from "./harness/browser";
import { startConsoleWorld, type ConsoleWorld } from "./harness/console-world";
import { startHostReceiver, type HostReceiver } from "./simulator/host-receiver";
import { postWebhook } from "./simulator/send-webhooks";

// A destination during an incident, walked in Chromium at 1440 px: the host answers 503, the circuit
// opens and the page says so at the top (last error, when it opened and next probes, the backlog),
// no next try is in the past; the attempts are paged and one is inspected (request and answer, the
// signature masked); the host comes back, one delivery is retried now as the probe and then the
// queue; the destination is paused (deliveries queue) and resumed; delivered ones are resent by
// filter after a count; and the changes committed since a time before the destination existed are
// recovered. The same page, header, tables and inspector, fit 390 px.

const ADMIN = "admin@incident.test";
const EARLIER = 30;
let world: ConsoleWorld;
let receiver: HostReceiver;
let destinationId: number;
let since: Date;

async function paymentChange(): Promise<string> {
  const chargeId = randomId("ch");
  const webhook = webhookFor(
    "stripe",
    { chargeId, amount: 1500, currency: "usd", customerId: "cus_1", customerEmail: "c@example.com" },
    { kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() - 5000 },
    TEST_SECRETS.stripe,
  );
  expect((await postWebhook(world.server.url, webhook)).status).toBe(200);
  return chargeId;
}

const count = async (sql: string, params: unknown[] = []) => (await world.app.pool.query<{ n: number }>(sql, params)).rows[0]!.n;

beforeAll(async () => {
  world = await startConsoleWorld({
    label: "destination_incident",
    users: { [ADMIN]: "admin" },
    env: {
      REFETCH_STRIPE: "none",
      DESTINATION_TIMEOUT_MS: "2000",
      DESTINATION_RETRY_DELAYS_SECONDS: "30,30,30",
      DESTINATION_BREAKER_FAILURES: "3",
      DESTINATION_BREAKER_COOLDOWN_SECONDS: "600",
    },
  });
  // Changes committed (and numbered into the feed) before the destination exists: only a recovery sends them.
  since = new Date(Math.floor(Date.now() / 60_000) * 60_000);
  for (let i = 0; i < EARLIER; i++) await paymentChange();
  await waitFor(
    async () => (await count("SELECT count(*)::int AS n FROM payment_changes WHERE feed_position IS NOT NULL")) === EARLIER,
    60_000,
    "the earlier changes numbered",
  );
  const port = await freePort();
  const { destination, secret } = await createDestination(
    world.app.pool,
    { name: "shop", url: `http://127.0.0.1:${port}/webhooks` },
    { actor: "e2e" },
  );
  destinationId = destination.id;
  receiver = await startHostReceiver(secret, { fixedStatus: 503 }, port);
}, 300_000);
afterAll(async () => {
  await world?.close();
  await receiver?.close();
});

async function open(page: Page, query = ""): Promise<void> {
  await page.goto(`${world.server.url}/destinations/${destinationId}${query}`);
  await rendered(page);
}

const condition = (page: Page) => page.getByTestId("destination-condition").textContent();

describe("[ADMIN][DESTINATIONS] a destination during an incident", () => {
  it("shows the failing state, pages and inspects attempts, retries now, pauses and resumes, resends by filter and recovers since T", async () => {
    const page = await world.browserAs(ADMIN, { width: 1440, height: 900 });
    for (let i = 0; i < 5; i++) await paymentChange();
    await waitFor(
      async () => (await count("SELECT count(*)::int AS n FROM destinations WHERE breaker_open_until IS NOT NULL")) === 1,
      60_000,
      "the circuit open",
    );
    await waitFor(async () => (await count("SELECT count(*)::int AS n FROM deliveries")) === 5, 30_000, "the five queued");
    await waitFor(
      async () => (await count("SELECT count(*)::int AS n FROM deliveries WHERE leased_until >= now()")) === 0,
      30_000,
      "the answers recorded",
    );

    // The header: failing with the circuit open, the last error, when it opened and next probes, the backlog.
    await open(page);
    expect(await condition(page)).toContain("Failing: circuit open");
    expect(await page.getByTestId("destination-last-error").textContent()).toContain("503 Service Unavailable");
    expect(await page.getByTestId("destination-next-probe").locator("time").count()).toBe(1);
    expect(await page.getByTestId("destination-undelivered").textContent()).toMatch(/^5 waiting, the oldest for \d+s$/);
    // No next try in the past: every one is the circuit's probe, minutes ahead.
    const nextTimes = await page
      .locator('table[aria-label="Deliveries"] td[data-col=next] time')
      .evaluateAll((times) => times.map((time) => time.getAttribute("datetime")!));
    expect(nextTimes).toHaveLength(5);
    for (const time of nextTimes) expect(new Date(time).getTime()).toBeGreaterThan(Date.now() + 500_000);
    await screenshot(page, "destination-incident-open");

    // The attempts, with their total, and one inspected: the request as sent, signature masked, and the answer.
    // Each change was tried until the circuit opened (after 3 failures; those already in flight count too).
    expect(await page.getByTestId("attempt-total").textContent()).toMatch(/^Page 1 of 1 · [3-5] attempts$/);
    await page.getByRole("table", { name: "Attempts" }).getByRole("link", { name: "Inspect" }).first().click();
    await page.waitForURL(/attempt=/);
    await rendered(page);
    const inspector = page.getByRole("region", { name: "Attempt inspector" });
    expect(await inspector.getByTestId("inspected-status").textContent()).toBe("503");
    expect(await inspector.getByLabel("Request headers").textContent()).toContain("webhook-signaturev1,***");
    expect(await inspector.getByTestId("response-excerpt").textContent()).toBe("fixed answer");
    expect(await inspector.textContent()).toContain('"payment.updated"');
    await screenshot(page, "destination-incident-inspector");

    // The host is back: one delivery retried now goes as the circuit's probe and closes it.
    receiver.set({ fixedStatus: null });
    const row = page.getByTestId(/^delivery-chg_/).first();
    const probe = (await row.getAttribute("data-testid"))!.replace("delivery-", "");
    await row.getByRole("button", { name: "Retry now" }).click();
    await row.getByRole("status").filter({ hasText: "Sending now, as the circuit's probe." }).waitFor();
    // (Others whose backoff has passed follow it once it closes the circuit.)
    await waitFor(async () => receiver.applied.length >= 1, 30_000, "the probe delivered");
    expect(receiver.applied[0]!.id).toBe(probe);
    await waitFor(
      async () => (await count("SELECT count(*)::int AS n FROM destinations WHERE breaker_open_until IS NULL")) === 1,
      30_000,
      "the circuit closed",
    );
    // The rest wait out their backoff until the queue is retried now (those never tried before the
    // circuit opened may have gone with it already).
    await open(page);
    await page.getByRole("button", { name: "Retry now" }).first().click();
    await page
      .getByRole("status")
      .filter({ hasText: /^Retrying [0-4] deliver(y|ies) now\.$/ })
      .waitFor();
    await waitFor(async () => receiver.applied.length === 5, 30_000, "the queue delivered");
    await open(page);
    await expect.poll(() => condition(page)).toContain("Healthy");

    // Paused: nothing is sent, the new change queues, the header and its next try say so; resumed, it goes.
    await page.getByRole("button", { name: "Pause" }).click();
    await page.getByRole("status").filter({ hasText: "shop paused" }).waitFor();
    const queued = await paymentChange();
    await waitFor(
      async () => (await count("SELECT count(*)::int AS n FROM deliveries WHERE status = 'pending'")) === 1,
      30_000,
      "queued while paused",
    );
    await open(page);
    expect(await condition(page)).toContain("Paused");
    expect(await page.getByTestId("destination-undelivered").textContent()).toMatch(/^1 waiting/);
    expect(await page.locator("td[data-col=next]").first().textContent()).toBe("waits for the destination to be resumed");
    await screenshot(page, "destination-incident-paused");
    expect(receiver.applied.map(({ chargeId }) => chargeId)).not.toContain(queued);
    await page.getByRole("button", { name: "Resume" }).click();
    await waitFor(async () => receiver.applied.length === 6, 30_000, "delivered once resumed");

    // Bulk resend by filter: the count first, then the resend with it; audited with the filter and the count.
    await open(page);
    const resend = page.getByRole("region", { name: "Resend by filter" });
    await resend.getByLabel("Status").selectOption("delivered");
    await resend.getByRole("button", { name: "Count" }).click();
    expect(await resend.getByTestId("resend-count").textContent()).toBe("6 deliveries match.");
    await resend.getByRole("button", { name: "Resend 6 deliveries" }).click();
    await resend.getByRole("status").filter({ hasText: "Resending 6 deliveries." }).waitFor();
    await waitFor(async () => receiver.received.length === 12, 30_000, "the six resent");
    const { rows: audit } = await world.app.pool.query("SELECT details FROM audit_log WHERE action = 'delivery_resent'");
    expect(audit).toMatchObject([{ details: { destinationId, resent: 6, filter: { status: "delivered" } } }]);
    await waitFor(
      async () => (await count("SELECT count(*)::int AS n FROM deliveries WHERE status = 'pending'")) === 0,
      30_000,
      "resent delivered",
    );

    // Recover since T: the 30 changes from before the destination existed are queued, the 6 it got go again.
    const recover = page.getByRole("region", { name: "Recover since a time" });
    await recover.getByLabel("Changes committed since").fill(toZonedInput(since, "UTC"));
    await recover.getByRole("button", { name: "Count" }).click();
    expect(await recover.getByTestId("recover-count").textContent()).toBe(
      `36 changes to send again (${EARLIER} never queued here, 6 resent); 0 already pending.`,
    );
    await recover.getByRole("button", { name: "Recover 36 changes" }).click();
    await recover.getByRole("status").filter({ hasText: "Recovering 36 changes" }).waitFor();
    await waitFor(async () => receiver.applied.length === 6 + EARLIER, 60_000, "the earlier changes at the host");
    const { rows: recovered } = await world.app.pool.query("SELECT details FROM audit_log WHERE action = 'deliveries_recovered'");
    expect(recovered).toMatchObject([
      { details: { destinationId, since: since.toISOString(), queued: EARLIER, resent: 6, alreadyPending: 0 } },
    ]);

    // 36 deliveries: two pages of 25.
    await open(page);
    expect(await page.getByTestId("delivery-total").textContent()).toBe("Page 1 of 2 · 36 deliveries");
    await page.getByRole("navigation", { name: "Pages" }).first().getByRole("link", { name: "Next »" }).click();
    await page.waitForURL(/page=2/);
    await rendered(page);
    expect(await page.getByTestId(/^delivery-chg_/).count()).toBe(11);
    await screenshot(page, "destination-incident-recovered");
  });

  it("fits 390 px: the header, the tables and the inspector", async () => {
    const page = await world.browserAs(ADMIN, { width: 390, height: 844 });
    const { rows } = await world.app.pool.query<{ id: number }>("SELECT id FROM delivery_attempts ORDER BY id LIMIT 1");
    await open(page, `?attempt=${rows[0]!.id}`);
    await page.getByTestId("destination-state").waitFor();
    await page.getByRole("region", { name: "Attempt inspector" }).waitFor();
    expect(await condition(page)).toContain("Healthy");
    expect(await page.getByRole("button", { name: "Pause" }).isVisible()).toBe(true);
    expect(await page.getByTestId("delivery-total").textContent()).toBe("Page 1 of 2 · 36 deliveries");
    expect(await horizontalOverflow(page)).toBe(0);
    await screenshot(page, "destination-incident-390");
  });
});
