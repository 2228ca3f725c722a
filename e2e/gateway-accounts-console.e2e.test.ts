import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fingerprint } from "@/lib/gateway-accounts/sealed-account";
import { randomId, webhookFor } from "@/lib/testing/gateway-events";
import { waitFor } from "@/lib/testing/test-worker";
import { horizontalOverflow, rendered, screenshot } from "./harness/browser";
import { startConsoleWorld, type ConsoleWorld } from "./harness/console-world";
import { postWebhook } from "./simulator/send-webhooks";

// [ADMIN][GATEWAY ACCOUNTS] The console's accounts page in a real Chromium, at 1440 and 390 px: an
// admin adds an account (its URL takes the gateway's deliveries at once), rotates its secret (both
// verify until the old one is retired), disables it; the secrets typed in are never shown back,
// neither on the page nor in what the server sends it.

const ADMIN = "admin@accounts.test";
const WIDE = { width: 1440, height: 900 };
const NARROW = { width: 390, height: 844 };
const SECRET = "asaas-console-token-0123456789";
const ROTATED = "asaas-console-token-rotated-0123";
const API_KEY = "$aact_console_key_0123456789";
let world: ConsoleWorld;

beforeAll(async () => {
  world = await startConsoleWorld({
    label: "gateway_accounts_console",
    users: { [ADMIN]: "admin" },
    env: {
      ACCOUNT_SECRETS_KEY: "e2e-console-account-secrets-key-0123456789",
      ASAAS_ACCOUNTS: "from-env",
      WEBHOOK_SECRET_ASAAS_FROM_ENV: "asaas-env-token-0123456789",
      // The deliveries here only show the URL answering: nothing is fetched from anywhere.
      REFETCH_ASAAS: "none",
      ASAAS_API_URL: "http://127.0.0.1:9/v3",
    },
  });
}, 240_000);
afterAll(async () => world?.close());

/** What the browser received and shows: the page's HTML, and every response body it read. */
async function watchResponses(page: Page): Promise<() => Promise<string>> {
  const bodies: Promise<string>[] = [];
  page.on("response", (response) => bodies.push(response.text().catch(() => "")));
  return async () => [await page.content(), ...(await Promise.all(bodies))].join("\n");
}

const row = (page: Page, name: string) => page.getByTestId(`account-asaas-${name}`);
const shownSecrets = async (page: Page, name: string) => (await page.getByTestId(`secrets-asaas-${name}`).textContent())!.split(", ");

async function addAccount(page: Page, name: string, secret: string, apiKey?: string): Promise<void> {
  const form = page.getByRole("form", { name: "Add an account" });
  await form.locator('select[name="provider"]').selectOption("asaas");
  await form.getByLabel("Name").fill(name);
  await form.getByLabel("Webhook secret").fill(secret);
  if (apiKey) await form.getByLabel("API key (optional)").fill(apiKey);
  await form.getByRole("button", { name: "Add account" }).click();
  await page
    .getByRole("status")
    .filter({ hasText: `Added asaas/${name}` })
    .waitFor();
  await row(page, name).waitFor();
}

const delivered = async (name: string, secret: string) => {
  const step = { kind: "succeeded" as const, amountRefunded: 0, occurredAtMs: Date.now() - 60_000 };
  const payment = { chargeId: randomId("pay"), amount: 100, currency: "brl", customerId: "c", customerEmail: "c@example.com" };
  return (await postWebhook(world.server.url, webhookFor("asaas", payment, step, secret), name)).status;
};

describe("[ADMIN][GATEWAY ACCOUNTS] console", () => {
  it("adds, rotates and disables an account at 1440 px; the secrets typed in are never shown back", async () => {
    const page = await world.browserAs(ADMIN, WIDE);
    const seen = await watchResponses(page);
    await page.getByRole("link", { name: "Gateway accounts" }).click();
    await page.getByRole("heading", { name: "Gateway accounts" }).waitFor();
    await page.getByRole("table", { name: "Accounts from the environment" }).getByText("asaas/from-env", { exact: true }).waitFor();
    await addAccount(page, "loja-web", SECRET, API_KEY);
    expect(await shownSecrets(page, "loja-web")).toEqual([fingerprint(SECRET)]);
    await expect(row(page, "loja-web").textContent()).resolves.toContain(`apiKey ${fingerprint(API_KEY)}`);
    await expect(page.getByRole("form", { name: "Add an account" }).getByLabel("Webhook secret").inputValue()).resolves.toBe("");
    // Its URL takes deliveries now.
    await waitFor(async () => (await delivered("loja-web", SECRET)) === 200, 5_000, "loja-web's deliveries");

    await row(page, "loja-web").getByRole("button", { name: "Rotate" }).click();
    const rotation = page.getByRole("form", { name: "Rotate asaas/loja-web" });
    await rotation.getByLabel("New webhook secret").fill(ROTATED);
    await rotation.getByRole("button", { name: "Rotate" }).click();
    await page.getByRole("status").filter({ hasText: "Rotated asaas/loja-web: 2 secrets verify now" }).waitFor();
    await waitFor(async () => (await shownSecrets(page, "loja-web")).length === 2, 10_000, "both secrets shown");
    expect(await shownSecrets(page, "loja-web")).toEqual([fingerprint(ROTATED), fingerprint(SECRET)]);
    await waitFor(async () => (await delivered("loja-web", ROTATED)) === 200, 5_000, "the new secret verifies");
    expect(await delivered("loja-web", SECRET)).toBe(200);
    await screenshot(page, "gateway-accounts-1440");

    await row(page, "loja-web").getByRole("button", { name: "Retire old" }).click();
    await page.getByRole("status").filter({ hasText: "Retired the old secrets" }).waitFor();
    await waitFor(async () => (await shownSecrets(page, "loja-web")).length === 1, 10_000, "one secret shown");
    await waitFor(async () => (await delivered("loja-web", SECRET)) === 401, 5_000, "the old secret refused");

    await row(page, "loja-web").getByRole("button", { name: "Disable" }).click();
    await page.getByRole("status").filter({ hasText: "asaas/loja-web disabled" }).waitFor();
    await row(page, "loja-web").getByText("disabled", { exact: true }).waitFor();
    await waitFor(async () => (await delivered("loja-web", ROTATED)) === 503, 5_000, "a disabled account's deliveries refused");
    expect(await horizontalOverflow(page)).toBe(0);

    const everything = await seen();
    for (const secret of [SECRET, ROTATED, API_KEY]) expect(everything).not.toContain(secret);
    const { rows } = await world.app.pool.query("SELECT actor, action FROM audit_log WHERE details->>'account' = 'loja-web' ORDER BY id");
    expect(rows).toEqual(
      ["gateway_account_added", "gateway_account_rotated", "gateway_account_rotated", "gateway_account_disabled"].map((action) => ({
        actor: ADMIN,
        action,
      })),
    );
    await page.context().close();
  });

  it("works at 390 px: the list fits, an account is added and removed", async () => {
    const page = await world.browserAs(ADMIN, NARROW);
    const seen = await watchResponses(page);
    await page.goto(`${world.server.url}/gateway-accounts`);
    await page.getByRole("heading", { name: "Gateway accounts" }).waitFor();
    await addAccount(page, "loja-phone", SECRET);
    await rendered(page);
    expect(await horizontalOverflow(page)).toBe(0);
    await screenshot(page, "gateway-accounts-390");
    page.once("dialog", (dialog) => {
      dialog.accept().catch(() => undefined);
    });
    await row(page, "loja-phone").getByRole("button", { name: "Remove" }).click();
    await page.getByRole("status").filter({ hasText: "Removed asaas/loja-phone" }).waitFor();
    await waitFor(async () => (await row(page, "loja-phone").count()) === 0, 10_000, "the removed account gone from the list");
    await waitFor(async () => (await delivered("loja-phone", SECRET)) === 404, 5_000, "a removed account's URL");
    expect(await seen()).not.toContain(SECRET);
  });
});
