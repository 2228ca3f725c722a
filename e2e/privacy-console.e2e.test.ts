import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REDACTED } from "@/lib/canonical/redacted";
import { randomId, webhookFor, type PaymentFacts } from "@/lib/testing/gateway-events";
import { TEST_SECRETS } from "@/lib/testing/test-app";
import { horizontalOverflow, rendered, screenshot } from "./harness/browser";
import { startConsoleWorld, type ConsoleWorld } from "./harness/console-world";
import { postWebhook } from "./simulator/send-webhooks";

// A data subject's requests from the console, as an admin, in Chromium at 1440 and 390 px: the
// export (its summary, the JSON downloaded as a file), the erasure's dry run (counts per table, the
// payments affected, nothing changed), the typed confirmation (the identifier, or ERASE), the
// erasure's done state and counts, the erased payment and its event (the body said to be redacted
// and no longer verifiable), and the paged list of erasures. Only an admin has the page.

const ADMIN = "admin@privacy.test";
const FINANCE = "finance@privacy.test";
const WIDTHS = [1440, 390] as const;

let world: ConsoleWorld;

beforeAll(async () => {
  world = await startConsoleWorld({
    label: "privacy_console",
    users: { [ADMIN]: "admin", [FINANCE]: "finance" },
    env: { REFETCH_STRIPE: "none", PRIVACY_HASH_KEY: "e2e-privacy-hash-key-0123456789abcdef" },
  });
}, 240_000);
afterAll(async () => world?.close());

/** A paid Stripe payment of this customer, processed by the worker. */
async function paidPayment(customerEmail: string): Promise<PaymentFacts> {
  const facts = { chargeId: randomId("ch"), amount: 12_345, currency: "brl", customerId: randomId("cus"), customerEmail };
  const webhook = webhookFor(
    "stripe",
    facts,
    { kind: "succeeded", amountRefunded: 0, occurredAtMs: Date.now() - 5000 },
    TEST_SECRETS.stripe,
  );
  expect((await postWebhook(world.server.url, webhook)).status).toBe(200);
  await world.settled(60_000);
  return facts;
}

/** A counts table (per table and archive) as name -> count. */
async function countsIn(page: Page, table: string): Promise<Record<string, number>> {
  const rows = page.locator(`table[aria-label="${table}"] tbody tr`);
  await rows.first().waitFor();
  const names = await rows.locator("td[data-col=name]").allTextContents();
  const counts = await rows.locator("td[data-col=count]").allTextContents();
  return Object.fromEntries(names.map((name, index) => [name, Number(counts[index])]));
}

const overflow = async (page: Page, where: string) => expect(await horizontalOverflow(page), where).toBe(0);

describe("[ADMIN][PRIVACY] console", () => {
  it("is an admin's page only: finance has no link and is refused", async () => {
    const page = await world.browserAs(FINANCE);
    expect(await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Personal data" }).count()).toBe(0);
    const response = await page.goto(`${world.server.url}/privacy`);
    expect(response?.status()).toBe(403);
  });

  it.each(WIDTHS)("exports a subject, dry-runs the erasure, confirms it by typing, and shows it done (%i px)", async (width) => {
    const email = `subject.${width}@privacy.test`;
    const payment = await paidPayment(email);
    const page = await world.browserAs(ADMIN, { width, height: 900 });
    if (width < 600) await page.getByRole("button", { name: /menu/i }).click();
    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Personal data" }).click();
    await page.getByRole("heading", { name: "Personal data", level: 1 }).waitFor();

    // The export: its summary, and the same JSON the CLI prints, downloaded as a file.
    await page.getByLabel("Named by").selectOption("email");
    await page.getByLabel("Identifier").fill(email.toUpperCase());
    await page.getByRole("button", { name: "Export" }).click();
    const summary = page.getByTestId("export-summary");
    await summary.waitFor();
    expect(await summary.locator("[data-count=payments] .value").textContent()).toBe("1");
    expect(await summary.locator("[data-count=events] .value").textContent()).toBe("1");
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download JSON" }).click()]);
    expect(download.suggestedFilename()).toMatch(/^subject-export-\d{4}-\d{2}-\d{2}\.json$/);
    const exported = JSON.parse(readFileSync((await download.path())!, "utf8"));
    expect(exported.payments).toEqual([expect.objectContaining({ chargeId: payment.chargeId, customerEmail: email })]);
    await overflow(page, "export");
    await screenshot(page, `privacy-export-${width}`);

    // The dry run: what would change, the payment affected, and nothing changed yet.
    await page.getByRole("button", { name: "Dry run erasure" }).click();
    expect(await countsIn(page, "What the erasure would change")).toMatchObject({ payments: 1, inbox_events: 1, customer_emails: 1 });
    await page.getByRole("table", { name: "Payments affected" }).getByText(payment.chargeId).waitFor();
    const { rows: untouched } = await world.app.pool.query("SELECT customer_email FROM payments WHERE gateway_charge_id = $1", [
      payment.chargeId,
    ]);
    expect(untouched).toEqual([{ customer_email: email }]);
    await overflow(page, "dry run");
    await screenshot(page, `privacy-dry-run-${width}`);

    // The typed confirmation: anything but the identifier or ERASE leaves the button off.
    const erase = page.getByRole("button", { name: "Erase this subject" });
    const confirm = page.getByLabel("Type the identifier or ERASE to confirm");
    expect(await erase.isDisabled()).toBe(true);
    await confirm.fill("erase");
    expect(await erase.isDisabled()).toBe(true);
    await confirm.fill(width === 1440 ? "ERASE" : email.toUpperCase());
    await erase.click();
    await page.waitForURL(/\/privacy\/erasures\/\d+$/);
    await page.getByTestId("erasure-state").getByText("the subject is erased").waitFor({ timeout: 60_000 });
    await rendered(page);
    expect(await countsIn(page, "Changed, per table and archive")).toMatchObject({ payments: 1, inbox_events: 1, customer_emails: 1 });
    await page.getByRole("table", { name: "Payments erased" }).getByText(payment.chargeId).waitFor();
    await overflow(page, "done");
    await screenshot(page, `privacy-erasure-done-${width}`);

    const { rows: erased } = await world.app.pool.query(
      "SELECT customer_email, amount, status FROM payments WHERE gateway_charge_id = $1",
      [payment.chargeId],
    );
    expect(erased).toEqual([{ customer_email: REDACTED, amount: payment.amount, status: "paid" }]);

    // The erased payment keeps its money, its customer shown as erased (no link to anyone's page).
    await page.getByRole("table", { name: "Payments erased" }).getByRole("link", { name: payment.chargeId }).click();
    await page.waitForURL(/\/payments\/\d+$/);
    await rendered(page);
    expect(await page.getByRole("link", { name: REDACTED }).count()).toBe(0);
    await page.getByText(REDACTED).first().waitFor();
    await overflow(page, "erased payment");
    // Its event: the body redacted, said so, with what the original proved.
    await page
      .getByRole("table", { name: /timeline/i })
      .getByRole("link")
      .first()
      .click();
    await page.waitForURL(/\/events\/\d+$/);
    const notice = page.getByTestId("redaction-notice");
    await notice.getByText("can no longer be verified against the gateway's signature").waitFor();
    expect(await notice.textContent()).toMatch(/SHA-256: [0-9a-f]{64}/);
    expect(await page.getByTestId("raw-body").textContent()).not.toContain(email);
    await overflow(page, "erased event");
    await screenshot(page, `privacy-erased-event-${width}`);
    await page.goBack();
    await page.goBack();

    // The list of erasures, paged with its total, links back to this one.
    await page.getByRole("link", { name: "All erasures" }).click();
    const total = await world.app.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM privacy_erasures");
    const n = total.rows[0]!.n;
    await page
      .getByTestId("erasures-total")
      .getByText(`${n} erasure${n === 1 ? "" : "s"}`)
      .waitFor();
    await overflow(page, "list");
  });

  it("audited the exports and the erasures under the admin, never with the identifier", async () => {
    const { rows } = await world.app.pool.query(
      "SELECT action, actor, details::text AS details FROM audit_log WHERE action IN ('privacy_export', 'privacy_erasure') ORDER BY id",
    );
    expect(rows.map((row) => [row.action, row.actor])).toEqual([
      ["privacy_export", ADMIN],
      ["privacy_erasure", ADMIN],
      ["privacy_export", ADMIN],
      ["privacy_erasure", ADMIN],
    ]);
    expect(rows.map((row) => row.details).join()).not.toMatch(/privacy\.test/);
  });
});
