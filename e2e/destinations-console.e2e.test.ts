import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/lib/auth/users";
import { freePort } from "@/lib/db/embedded";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import { startAppServer, type AppServer } from "./harness/app-server";
import { openBrowser, screenshot, signIn } from "./harness/browser";
import { webhookFor, randomId, type HistoryStep } from "@/lib/testing/gateway-events";
import { startHostReceiver, type HostReceiver } from "./simulator/host-receiver";
import { postWebhook } from "./simulator/send-webhooks";

// Destinations from the console in a real Chromium: an admin adds one (its secret shown once, the
// host verifies with it), a delivery the host keeps refusing goes dead after its retries and is
// resent from the console, and a 410 Gone switches the destination off.

const PASSWORD = "correct horse battery staple";
const ADMIN = "admin@destinations.test";
let app: TestApp;
let server: AppServer;
let receiver: HostReceiver | undefined;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  app = await createTestApp("destinations_console");
  await createUser(app.prisma, { email: ADMIN, role: "admin", password: PASSWORD }, "e2e");
  server = await startAppServer({
    DATABASE_URL: app.db.url,
    WEBHOOK_SECRET_STRIPE: TEST_SECRETS.stripe,
    REFETCH_STRIPE: "none",
    AUTH_SECRET: "e2e-auth-secret-0123456789abcdef0123456789",
    DESTINATION_TIMEOUT_MS: "2000",
    DESTINATION_RETRY_DELAYS_SECONDS: "0.1,0.1",
  });
  context = await openBrowser();
  page = await signIn(context, server.url, ADMIN, PASSWORD);
}, 240_000);
afterAll(async () => {
  await context?.close().catch(() => undefined);
  await server?.stop();
  await receiver?.close();
  await app?.close();
});

async function paymentChange(kind: HistoryStep["kind"]): Promise<string> {
  const chargeId = randomId("ch");
  const webhook = webhookFor(
    "stripe",
    { chargeId, amount: 1500, currency: "usd", customerId: "cus_1", customerEmail: "c@example.com" },
    { kind, amountRefunded: 0, occurredAtMs: Date.now() - 5000 },
    TEST_SECRETS.stripe,
  );
  const response = await postWebhook(server.url, webhook);
  expect(response.status).toBe(200);
  return chargeId;
}

const deliveryStatus = async (chargeId: string) =>
  (
    await app.pool.query<{ status: string }>(
      "SELECT d.status FROM deliveries d JOIN payment_changes c ON c.id = d.change_id WHERE c.gateway_charge_id = $1",
      [chargeId],
    )
  ).rows[0]?.status;

describe("[ADMIN][DESTINATIONS] console", () => {
  it("adds a destination (secret shown once), sees a delivery go dead after its retries, resends it; a 410 switches it off", async () => {
    const port = await freePort();
    await page.goto(`${server.url}/destinations`);
    await page.getByRole("heading", { name: "Destinations" }).waitFor();
    await page.getByLabel("Name").fill("shop");
    await page.getByLabel("URL").fill(`http://127.0.0.1:${port}/webhooks`);
    await page.getByRole("button", { name: "Add destination" }).click();
    const secret = (await page.getByTestId("destination-secret").textContent())!;
    expect(secret).toMatch(/^whsec_/);
    receiver = await startHostReceiver(secret, { fixedStatus: 503 }, port);

    // The host refuses: after the retries the delivery is dead, and the page counts it.
    const refused = await paymentChange("succeeded");
    await waitFor(async () => (await deliveryStatus(refused)) === "dead", 60_000, "the delivery dead");
    await page.reload();
    const row = page.getByRole("row", { name: /shop/ });
    await expect.poll(() => row.getByRole("cell").nth(7).textContent()).toBe("1");
    await screenshot(page, "destinations-dead");

    // Resend from the console once the host is back: delivered, verified, audited.
    receiver.set({ fixedStatus: null });
    page.once("dialog", (dialog) => {
      dialog.accept().catch(() => undefined);
    });
    await row.getByRole("button", { name: "Resend dead" }).click();
    await page.getByRole("status").filter({ hasText: "Resending 1 delivery." }).waitFor();
    await waitFor(async () => receiver!.applied.length === 1, 30_000, "the resent change at the host");
    expect(receiver.applied[0]).toMatchObject({ chargeId: refused, version: 1, status: "paid" });
    const { rows: audit } = await app.pool.query("SELECT actor FROM audit_log WHERE action = 'delivery_resent'");
    expect(audit).toEqual([{ actor: ADMIN }]);

    // 410 Gone: the destination is switched off, and the page says why.
    receiver.set({ fixedStatus: 410 });
    const gone = await paymentChange("succeeded");
    await waitFor(
      async () => (await app.pool.query("SELECT 1 FROM destinations WHERE NOT enabled")).rowCount === 1,
      30_000,
      "the destination switched off",
    );
    await page.reload();
    await page.getByRole("row", { name: /shop/ }).getByText("disabled: the destination answered 410 Gone").waitFor();
    expect(await deliveryStatus(gone)).toBe("pending");

    // Its deliveries page shows the answers.
    await page.getByRole("link", { name: "shop" }).click();
    await page.getByRole("table", { name: "Deliveries" }).locator("td[data-col=lastStatusCode]", { hasText: "410" }).waitFor();
    await screenshot(page, "destination-deliveries");
  });
});
