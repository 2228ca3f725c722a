import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/lib/auth/users";
import { signedWebhook } from "@/lib/testing/gateway-events";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import { startAppServer, type AppServer } from "./harness/app-server";
import { openBrowser, signIn } from "./harness/browser";
import { postWebhook } from "./simulator/send-webhooks";

// Input safety against `next start` and a real worker in a real Chromium: no
// password hash in what the Users page or its actions send, the viewer's masking on a hostile
// payload, bad query input answered without a 500 or database text, and /api/health's two faces.

const PASSWORD = "correct horse battery staple";
const ROLES = ["viewer", "support", "admin"] as const;
const email = (role: string) => `${role}@safety.test`;
const CHARGE = "ch_hostile_1";

// What a viewer must never see, each planted in the payload below.
const SECRETS = {
  card: "4111111111111111",
  cvc: "737",
  cpf: "123.456.789-09",
  phone: "99876-5432",
  street: "Rua Augusta 1500",
  customerId: "cus_hostile_42",
  email: "joão.silva@exemplo.com.br",
};

let app: TestApp;
let server: AppServer;
const contexts: BrowserContext[] = [];

async function browserFor(role: (typeof ROLES)[number]): Promise<Page> {
  const context = await openBrowser();
  contexts.push(context);
  return signIn(context, server.url, email(role), PASSWORD);
}

async function sendWebhook(eventId: string, body: string): Promise<void> {
  const response = await postWebhook(server.url, signedWebhook("stripe", eventId, body, TEST_SECRETS.stripe));
  expect(response.status).toBe(200);
}

async function inboxId(where: string): Promise<number> {
  const { rows } = await app.pool.query(`SELECT id FROM webhook_inbox WHERE ${where}`);
  return rows[0]!.id as number;
}

beforeAll(async () => {
  app = await createTestApp("input_safety", {});
  for (const role of ROLES) await createUser(app.prisma, { email: email(role), role, password: PASSWORD }, "e2e");
  server = await startAppServer({
    DATABASE_URL: app.db.url,
    WEBHOOK_SECRET_STRIPE: TEST_SECRETS.stripe,
    AUTH_SECRET: "e2e-auth-secret-0123456789abcdef0123456789",
    HEALTH_TOKENS: "e2e-health-token",
    WORKER_MAX_ATTEMPTS: "1",
  });
  await sendWebhook(
    "evt_hostile_1",
    JSON.stringify({
      id: "evt_hostile_1",
      object: "event",
      type: "charge.succeeded",
      created: Math.floor(Date.now() / 1000) - 60,
      data: {
        object: {
          id: CHARGE,
          object: "charge",
          amount: 4200,
          amount_refunded: 0,
          currency: "brl",
          status: "succeeded",
          captured: true,
          customer: SECRETS.customerId,
          receipt_email: SECRETS.email,
          description: `pedido CPF ${SECRETS.cpf}`,
          billing_details: { email: SECRETS.email, phone: `+55 11 ${SECRETS.phone}`, address: { line1: SECRETS.street } },
          metadata: { card_number: SECRETS.card, cvc: SECRETS.cvc },
        },
      },
    }),
  );
  // A signed body that can't be read: failed, with a reason that support may read and a viewer may not.
  await sendWebhook("evt_unreadable", `card ${SECRETS.card}`);
  await waitFor(
    async () => (await app.pool.query("SELECT 1 FROM webhook_inbox WHERE status = 'pending'")).rowCount === 0,
    60_000,
    "events to settle",
  );
}, 240_000);

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  await server?.stop();
  await app?.close();
});

describe("input safety", () => {
  it("[ADMIN][USERS]: no password hash in the Users page payload, its RSC payload or the createUser reply", async () => {
    const page = await browserFor("admin");
    await page.goto(`${server.url}/users`);
    await page.getByRole("table", { name: "Users" }).waitFor();
    expect(await page.content()).not.toMatch(/scrypt|passwordHash|password_hash/);
    const rsc = await page.request.get(`${server.url}/users`, { headers: { RSC: "1" } });
    expect(rsc.status()).toBe(200);
    const flight = await rsc.text();
    expect(flight).toContain(email("viewer"));
    expect(flight).not.toMatch(/scrypt|passwordHash|password_hash/);

    // The server action's reply, read on its way to the page.
    const replies: string[] = [];
    await page.route(`${server.url}/users`, async (route) => {
      if (route.request().method() !== "POST") return route.continue();
      const response = await route.fetch();
      replies.push(await response.text());
      return route.fulfill({ response });
    });
    await page.getByLabel("E-mail").fill("new.user@safety.test");
    await page.getByRole("button", { name: "Add user" }).click();
    await page.getByText("Created new.user@safety.test").waitFor();
    const body = replies.join("\n");
    expect(body).toContain("new.user@safety.test");
    expect(body).not.toMatch(/scrypt|passwordHash|password_hash/);
  });

  it("[ADMIN][USERS]: two simultaneous creations of one user: one created, the other told it exists", async () => {
    const admin = await browserFor("admin");
    const second = await admin.context().newPage();
    for (const page of [admin, second]) {
      await page.goto(`${server.url}/users`);
      await page.getByLabel("E-mail").fill("twice@safety.test");
    }
    await Promise.all([admin, second].map((page) => page.getByRole("button", { name: "Add user" }).click()));
    const messages = await Promise.all(
      [admin, second].map(async (page) => {
        await page.locator("p[role=status]").waitFor();
        return (await page.locator("p[role=status]").textContent()) ?? "";
      }),
    );
    expect(messages.filter((text) => text.startsWith("Created twice@safety.test"))).toHaveLength(1);
    expect(messages.filter((text) => text.includes("already exists"))).toHaveLength(1);
    expect(messages.join(" ")).not.toMatch(/Something went wrong/);
  });

  it("[VIEWER][PII]: the event page shows a viewer only allow-listed fields, a masked e-mail and an error category", async () => {
    const page = await browserFor("viewer");
    await page.goto(`${server.url}/events/${await inboxId(`resource_id = '${CHARGE}'`)}`);
    await page.getByRole("heading", { name: "Payload" }).waitFor();
    const content = (await page.locator("main").textContent()) ?? "";
    for (const [name, secret] of Object.entries(SECRETS)) expect(content, name).not.toContain(secret);
    expect(content).toContain("j***@e***");
    // The event's own facts still show.
    for (const fact of [CHARGE, "charge.succeeded", "4200", "brl", "succeeded"]) expect(content).toContain(fact);
    expect(await page.getByTestId("raw-body").count()).toBe(0);

    await page.goto(`${server.url}/events/${await inboxId("status = 'failed'")}`);
    await page.getByText("Last error:").waitFor();
    const failed = (await page.locator("main").textContent()) ?? "";
    expect(failed).toContain("the body could not be read");
    expect(failed).not.toContain(SECRETS.card);

    // A viewer's search matches event and charge ids only: an e-mail is refused, so confirms nothing.
    await page.goto(`${server.url}/events?q=${encodeURIComponent(SECRETS.email)}`);
    await page.getByText("Viewers may not search by e-mail").waitFor();
    await page.goto(`${server.url}/events?q=${CHARGE}`);
    await page.locator(`table[aria-label=Events] tbody tr`).first().waitFor();
    await page.goto(`${server.url}/events?path=data.object.customer&value=${SECRETS.customerId}`);
    await expect.poll(() => page.locator(".banner[role=alert]").textContent()).toContain("needs the support role");
  });

  it("[SUPPORT][PII]: support sees the event as stored", async () => {
    const page = await browserFor("support");
    await page.goto(`${server.url}/events/${await inboxId(`resource_id = '${CHARGE}'`)}`);
    await page.getByRole("heading", { name: "Payload" }).waitFor();
    const content = (await page.locator("main").textContent()) ?? "";
    for (const secret of [SECRETS.card, SECRETS.cpf, SECRETS.customerId]) expect(content).toContain(secret);
  });

  describe("[ADMIN][BAD-INPUT]: bad query input gets 400 or a friendly message, never a 500 or database text", () => {
    const DATABASE_TEXT = /invalid input syntax|out of range for type|invalid byte sequence|0x00|bigint|timestamptz|Something went wrong/i;
    let page: Page;
    beforeAll(async () => {
      page = await browserFor("admin");
    });

    it("/api/events/99999999999999999999/raw", async () => {
      const response = await page.request.get(`${server.url}/api/events/99999999999999999999/raw`);
      expect(response.status()).toBe(400);
      expect(await response.text()).not.toMatch(DATABASE_TEXT);
    });

    const pages: [string, string, RegExp][] = [
      ["/audit?before=1.5", "/audit?before=1.5", /page marker is not an audit entry id/],
      ["/replays/new?from=garbage", "/replays/new?from=garbage", /filter can.t be used: from: not a date/],
      ["/events?cursor=<bad>", `/events?cursor=${encodeURIComponent("<bad>")}`, /filter can.t be used: cursor: is not a page of this list/],
      [
        "/events?cursor=<a forged cursor>",
        `/events?cursor=${Buffer.from(JSON.stringify({ v: "garbage", id: 1 })).toString("base64url")}`,
        /cursor/,
      ],
      // A NUL in a query is refused at the server's door, before any page reads it.
      ["/events?q=%00", "/events?q=%00", /malformed request target: an encoded NUL/],
      ["/events/99999999999999999999", "/events/99999999999999999999", /not found|404/i],
      ["/payments?q=%00", "/payments?q=%00", /malformed request target: an encoded NUL/],
    ];
    for (const [name, path, message] of pages) {
      it(name, async () => {
        const response = await page.goto(`${server.url}${path}`);
        expect(response!.status()).toBeLessThan(500);
        const text = (await page.locator("body").textContent()) ?? "";
        expect(text).toMatch(message);
        expect(text).not.toMatch(DATABASE_TEXT);
      });
    }

    it("a NUL in the login e-mail", async () => {
      const context = await openBrowser();
      contexts.push(context);
      const { request } = context;
      const { csrfToken } = (await (await request.get(`${server.url}/api/auth/csrf`)).json()) as { csrfToken: string };
      const response = await request.post(`${server.url}/api/auth/callback/credentials`, {
        form: { email: "a\u0000b@safety.test", password: PASSWORD, csrfToken, json: "true" },
        maxRedirects: 0,
      });
      expect(response.status()).toBeLessThan(500);
      const answer = `${response.headers().location ?? ""} ${await response.text()}`;
      expect(answer).toContain("CredentialsSignin");
      expect(decodeURIComponent(answer)).not.toMatch(DATABASE_TEXT);
    });
  });

  it("[OPS][HEALTH]: /api/health is bare in public, detailed for a session or a HEALTH_TOKENS token", async () => {
    const anonymous = await fetch(`${server.url}/api/health`);
    expect(anonymous.status).toBe(200);
    expect(await anonymous.json()).toEqual({ status: "ok" });
    const withToken = await fetch(`${server.url}/api/health`, { headers: { authorization: "Bearer e2e-health-token" } });
    expect(await withToken.json()).toMatchObject({ healthy: true, inbox: { failed: 1 } });
    const page = await browserFor("viewer");
    const withSession = await page.request.get(`${server.url}/api/health`);
    expect(await withSession.json()).toMatchObject({ healthy: true, database: { ok: true }, queue: { ok: true } });
  });
});
