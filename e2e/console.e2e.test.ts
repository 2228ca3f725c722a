import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventFilterSql } from "@/lib/inbox/queries/event-filter";
import { webhookFor, type PaymentFacts } from "@/lib/testing/gateway-events";
import { TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import type { AppServer } from "./harness/app-server";
import { pageIn, screenshot, signIn } from "./harness/browser";
import { CONSOLE_PASSWORD, startConsoleWorld, type ConsoleWorld } from "./harness/console-world";
import type { FakeGateway } from "./simulator/fake-gateway";
import { generateHistories, type PaymentHistory } from "./simulator/history";
import { postWebhook } from "./simulator/send-webhooks";

// The operations console in a real Chromium against `next start` and a real worker, on seeded data:
// simulator histories sent over HTTP, plus disputes whose refetch fails (their charges are
// unknown to the fake gateway) so there are failed events to replay.

const ROLES = ["viewer", "support", "finance", "admin"] as const;
const email = (role: string) => `${role}@console.test`;

let world: ConsoleWorld;
let app: TestApp;
let gateway: FakeGateway;
let server: AppServer;
let histories: PaymentHistory[];
const unknownToGateway: PaymentHistory[] = [];
const CONNECTED_ACCOUNT = "acct_console_e2e";

function browserFor(role: (typeof ROLES)[number]): Promise<Page> {
  return world.browserAs(email(role));
}

async function count(sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await app.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${sql}`, params);
  return rows[0]!.n;
}

beforeAll(async () => {
  world = await startConsoleWorld({
    label: "console",
    users: Object.fromEntries(ROLES.map((role) => [email(role), role])),
    histories: generateHistories(2024, 24, ["stripe", "standard"], { sameSecondRate: 0.3 }),
    env: {
      WORKER_MAX_ATTEMPTS: "1",
      WORKER_CONCURRENCY: "4",
      REPLAY_CONFIRM_THRESHOLD: "2",
      PAYMENTS_API_TOKENS: "e2e-payments-token-0123456789",
    },
  });
  ({ app, server, histories } = world);
  gateway = world.gateway!;
  await world.sendHistories({ duplicateRate: 0.2, shuffle: "full", seed: 7 }, 8);

  // Disputes on charges the gateway doesn't know yet: their refetch gets 404 and, with one attempt
  // allowed, they fail.
  for (const index of [1, 2, 3]) {
    const payment: PaymentFacts = {
      chargeId: `ch_disputed_${index}`,
      amount: 4200,
      currency: "usd",
      customerId: "cus_dispute",
      customerEmail: "dispute.owner@example.com",
      // One of them a Stripe Connect connected account's: its events carry the account.
      ...(index === 3 ? { account: CONNECTED_ACCOUNT } : {}),
    };
    const step = { kind: "dispute_opened" as const, amountRefunded: 0, occurredAtMs: Date.now() - 60_000 };
    unknownToGateway.push({ provider: "stripe", payment, steps: [step], truth: { status: "disputed", amountRefunded: 0 } });
    const response = await postWebhook(server.url, webhookFor("stripe", payment, step, TEST_SECRETS.stripe));
    expect(response.status).toBe(200);
  }
  await fetch(`${server.url}/api/webhooks/stripe`, { method: "POST", headers: { "stripe-signature": "t=1,v1=00" }, body: "{}" });
  await world.settled(60_000);
  expect(await count("webhook_inbox WHERE status = 'failed'")).toBe(3);
}, 240_000);

afterAll(async () => {
  await world?.close();
});

describe("operations console", () => {
  it("[ADMIN][AUTH]: signs in, sees the overview, signs out; bad passwords are refused and audited", async () => {
    const context = await world.openBrowser();
    const page = await pageIn(context);
    await page.goto(`${server.url}/events`);
    expect(page.url()).toContain("/login");
    await page.getByLabel("E-mail").fill(email("admin"));
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.locator("form [role=alert]").textContent()).toContain("Wrong e-mail or password");

    await signIn(context, server.url, email("admin"), CONSOLE_PASSWORD);
    await page.getByRole("heading", { name: "By provider" }).waitFor();
    await screenshot(page, "overview");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/login/);
    await page.goto(`${server.url}/`);
    expect(page.url()).toContain("/login");

    const { rows } = await app.pool.query("SELECT action FROM audit_log WHERE actor = $1 ORDER BY id", [email("admin")]);
    expect(rows.map((row) => row.action)).toEqual(["login_failed", "login", "logout"]);
  });

  it("[SUPPORT][SEARCH]: finds a customer's events by e-mail and opens a payload", async () => {
    const customer = histories[0]!.payment.customerEmail;
    const expected = await count("webhook_inbox WHERE customer_email = $1", [customer]);
    expect(expected).toBeGreaterThan(0);
    const page = await browserFor("support");
    await page.goto(`${server.url}/events`);
    await page.getByLabel("Search (e-mail, event, charge or customer id)").fill(customer);
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/q=/);
    const rows = page.locator("table[aria-label=Events] tbody tr");
    await expect.poll(() => rows.count()).toBe(expected);
    for (const text of await rows.locator("td[data-col=customerShown]").allTextContents()) expect(text).toBe(customer);
    await screenshot(page, "explorer");

    await rows.first().locator("td[data-col=eventType] a").click();
    await page.getByRole("heading", { name: "Payload" }).waitFor();
    await expect.poll(() => page.getByTestId("raw-body").textContent()).toContain(customer);
    expect(await page.locator(".json-tree").textContent()).toContain(customer);
    await screenshot(page, "event-detail");
  });

  it("[SUPPORT][ACCOUNT]: filters the explorer by gateway account, which the rows and the event page show", async () => {
    const page = await browserFor("support");
    // Rows of the default account only: no Account column.
    await page.goto(`${server.url}/events?provider=standard`);
    await page.locator("table[aria-label=Events] tbody tr").first().waitFor();
    expect(await page.locator("table[aria-label=Events] th", { hasText: "Account" }).count()).toBe(0);
    await page.goto(`${server.url}/events`);
    await page.getByText("More filters").click();
    await page.getByLabel("Account").fill(CONNECTED_ACCOUNT);
    await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/account=acct_console_e2e/);
    const rows = page.locator("table[aria-label=Events] tbody tr");
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.locator("td[data-col=account]").allTextContents()).toEqual([CONNECTED_ACCOUNT]);
    expect(await rows.locator("td[data-col=resourceId]").textContent()).toContain("ch_disputed_3");
    await rows.first().locator("td[data-col=eventType] a").click();
    await page.getByRole("heading", { name: "Normalized" }).waitFor();
    expect(await page.locator("dt:text-is('Account') + dd").textContent()).toBe(CONNECTED_ACCOUNT);
  });

  it("[FINANCE][REPLAY]: replays one failed event and sees it processed", async () => {
    const target = unknownToGateway[0]!;
    const { rows } = await app.pool.query("SELECT id FROM webhook_inbox WHERE resource_id = $1", [target.payment.chargeId]);
    const id = rows[0]!.id as number;
    gateway.add([target]); // the cause is fixed: the gateway now knows the charge
    const page = await browserFor("finance");
    await page.goto(`${server.url}/events?status=failed`);
    await page.locator(`tr[data-event-id="${id}"] td[data-col=eventType] a`).click();
    await page.getByText("failed", { exact: false }).first().waitFor();
    await page.getByRole("button", { name: "Replay" }).click();
    await expect
      .poll(
        async () => {
          await page.reload();
          return page.locator("h1 + .badge, .badge").first().textContent();
        },
        { timeout: 30_000, interval: 1000 },
      )
      .toContain("processed");
    expect(await count("audit_log WHERE action = 'replay' AND actor = $1", [email("finance")])).toBe(1);
    expect(
      (await app.pool.query("SELECT status FROM payments WHERE gateway_charge_id = $1", [target.payment.chargeId])).rows[0].status,
    ).toBe("disputed");
  });

  it("[FINANCE][BULK]: the bulk replay preview counts exactly what the filter matches, and the replay runs", async () => {
    const page = await browserFor("finance");
    await page.goto(`${server.url}/events?provider=stripe&status=ignored,failed`);
    await page.getByRole("link", { name: "Replay these…" }).click();
    await page.getByTestId("replay-preview-count").waitFor();
    const { where, params } = eventFilterSql({ provider: "stripe", statuses: ["ignored", "failed"] });
    const expected = await count(`webhook_inbox WHERE ${where}`, params);
    expect(expected).toBeGreaterThan(2);
    expect(Number(await page.getByTestId("replay-preview-count").textContent())).toBe(expected);
    expect(await page.getByTestId("replay-preview-providers").textContent()).toBe(`stripe: ${expected}`);

    // Above the threshold, the button waits for the count typed back.
    const start = page.getByRole("button", { name: `Replay ${expected} events` });
    expect(await start.isDisabled()).toBe(true);
    await page.getByLabel(`Type ${expected} to confirm`, { exact: false }).fill(String(expected));
    await start.click();
    await page.waitForURL(/\/replays\/\d+/);
    await expect
      .poll(() => page.getByTestId("replay-progress").textContent(), { timeout: 30_000 })
      .toBe(`${expected} / ${expected} events replayed`);
    expect(await count("audit_log WHERE action = 'replay' AND (details->>'count')::int = $1", [expected])).toBe(1);
  });

  it("[SUPPORT][REPLAY]: support has no replay button, and the server action refuses it", async () => {
    const { rows } = await app.pool.query("SELECT id FROM webhook_inbox WHERE status = 'failed' ORDER BY id LIMIT 1");
    const id = (rows[0]?.id ?? (await app.pool.query("SELECT id FROM webhook_inbox ORDER BY id LIMIT 1")).rows[0].id) as number;
    const before = (await app.pool.query("SELECT status, attempts FROM webhook_inbox WHERE id = $1", [id])).rows[0];
    const page = await browserFor("support");
    await page.goto(`${server.url}/events/${id}`);
    await page.getByRole("heading", { name: "Payload" }).waitFor();
    expect(await page.getByRole("button", { name: "Replay" }).count()).toBe(0);

    // Call the action the way the browser would, with support's session cookie.
    const manifest = JSON.parse(readFileSync(".next/server/server-reference-manifest.json", "utf8")) as {
      node: Record<string, { filename: string; exportedName: string }>;
    };
    const actionId = Object.entries(manifest.node).find(([, entry]) => entry.exportedName === "replayEvent")![0];
    const response = await page.request.post(`${server.url}/events/${id}`, {
      headers: { "Next-Action": actionId, "Content-Type": "text/plain;charset=UTF-8", Accept: "text/x-component" },
      data: JSON.stringify([{ id }]),
    });
    const body = await response.text();
    expect(body).toContain('"ok":false');
    expect(body).toContain("FORBIDDEN");
    expect((await app.pool.query("SELECT status, attempts FROM webhook_inbox WHERE id = $1", [id])).rows[0]).toEqual(before);
    expect(await count("audit_log WHERE action = 'replay' AND actor = $1", [email("support")])).toBe(0);
  });

  it("[VIEWER][PII]: sees customer data masked and no raw bytes", async () => {
    const target = histories.find((history) => history.provider === "stripe")!;
    const { rows } = await app.pool.query("SELECT id FROM webhook_inbox WHERE resource_id = $1 ORDER BY id LIMIT 1", [
      target.payment.chargeId,
    ]);
    const page = await browserFor("viewer");
    await page.goto(`${server.url}/events/${rows[0]!.id}`);
    await page.getByRole("heading", { name: "Payload" }).waitFor();
    const content = (await page.locator("main").textContent()) ?? "";
    expect(content).not.toContain(target.payment.customerEmail);
    expect(content).toContain("c***@e***");
    expect(content).toContain("customer data masked");
    expect(await page.getByTestId("raw-body").count()).toBe(0);
    expect(await page.getByRole("link", { name: "Replay these…" }).count()).toBe(0);
    const forbidden = await page.goto(`${server.url}/users`);
    expect(forbidden?.status()).toBe(403);
  });
});
