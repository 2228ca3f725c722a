import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decode, encode } from "next-auth/jwt";
import { createUser } from "@/lib/auth/users";
import { signedWebhook } from "@/lib/testing/gateway-events";
import { createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import { startAppServer, type AppServer } from "./harness/app-server";
import { openBrowser, pageIn } from "./harness/browser";
import { cookieHeader, httpSignIn, httpSignOut } from "./harness/http-session";
import { postWebhook } from "./simulator/send-webhooks";

// Security defaults against the built app: redirects after sign-in, security headers and CSP in Chromium,
// sessions that end on sign-out, forwarded addresses, and Secure cookies + HSTS behind https.
// Two servers: a plain one (no trusted proxies) and one whose public URL is https and which trusts
// the test as its proxy.

const PASSWORD = "correct horse battery staple";
const ADMIN = "admin@security.test";
const SUPPORT = "support@security.test";
const AUTH_SECRET = "security-e2e-secret-0123456789abcdef0123456789";
const API_TOKEN = "security-e2e-payments-token-0123456789";

let app: TestApp;
let plain: AppServer;
let behindProxy: AppServer;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  app = await createTestApp("security", {});
  await createUser(app.prisma, { email: ADMIN, role: "admin", password: PASSWORD }, "e2e");
  await createUser(app.prisma, { email: SUPPORT, role: "support", password: PASSWORD }, "e2e");
  const env = {
    DATABASE_URL: app.db.url,
    AUTH_SECRET,
    LOGIN_MAX_FAILURES: "3",
    WEBHOOK_SECRET_STRIPE: TEST_SECRETS.stripe,
    PAYMENTS_API_TOKENS: API_TOKEN,
  };
  [plain, behindProxy] = await Promise.all([
    startAppServer(env),
    startAppServer({ ...env, NEXTAUTH_URL: "https://inbox.security.test", TRUSTED_PROXIES: "127.0.0.1/32,::1" }),
  ]);
}, 240_000);

afterAll(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  await Promise.all([plain?.stop(), behindProxy?.stop()]);
  await app?.close();
});

async function browser(): Promise<Page> {
  const context = await openBrowser();
  contexts.push(context);
  return pageIn(context);
}

/** Console errors and CSP violations of a page, collected from its first load on. */
async function watchErrors(page: Page): Promise<string[]> {
  const errors: string[] = [];
  page.on("console", (message) => {
    // The app has no favicon; the browser's request for one is not the page's doing.
    if (message.type() === "error" && !message.location().url.endsWith("/favicon.ico")) errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  await page.exposeFunction("__reportViolation", (text: string) => errors.push(text));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      (window as unknown as { __reportViolation: (text: string) => void }).__reportViolation(
        `CSP: ${event.violatedDirective} ${event.blockedURI}`,
      );
    });
  });
  return errors;
}

async function submitLogin(page: Page, email: string) {
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
}

const auditIps = async (actor: string) =>
  (await app.pool.query("SELECT ip FROM audit_log WHERE actor = $1 AND action LIKE 'login%' ORDER BY id", [actor])).rows.map(
    (row) => row.ip,
  );

describe("security", () => {
  it("[AUTH][REDIRECT]: after sign-in, a hostile callbackUrl lands on our own overview, a path of ours is kept", async () => {
    const page = await browser();
    const foreignRequests: string[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).host !== new URL(plain.url).host) foreignRequests.push(request.url());
    });
    // The full table of hostile inputs is lib/request/same-origin-path.test.ts; here, the browser's side.
    for (const hostile of [
      "//evil.example/steal",
      "/\\evil.example/steal",
      "https://evil.example/steal",
      // Dot segments the URL parser resolves into "//host" after a naive check.
      "/.//evil.example/phish",
      "/..//evil.example/phish",
      "/%2e//evil.example/phish",
      "/a/..//evil.example/phish",
    ]) {
      await page.context().clearCookies();
      await page.goto(`${plain.url}/login?callbackUrl=${encodeURIComponent(hostile)}`);
      await submitLogin(page, SUPPORT);
      await page.getByRole("heading", { name: "Overview" }).waitFor();
      expect(page.url(), hostile).toBe(`${plain.url}/`);
    }
    await page.context().clearCookies();
    await page.goto(`${plain.url}/login?callbackUrl=${encodeURIComponent("/events?status=failed")}`);
    await submitLogin(page, SUPPORT);
    await page.waitForURL(`${plain.url}/events?status=failed`);
    expect(foreignRequests).toEqual([]);
  });

  it("[HEADERS]: pages carry a nonce CSP on every script, frame-ancestors none, nosniff, a referrer policy, no HSTS over http", async () => {
    const first = await fetch(`${plain.url}/login`);
    const second = await fetch(`${plain.url}/login`);
    const policy = first.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    expect(nonce).toBeDefined();
    expect(second.headers.get("content-security-policy")).not.toContain(nonce!);
    const scriptSrc = policy.split(";").find((directive) => directive.trim().startsWith("script-src"))!;
    expect(scriptSrc).toContain("'strict-dynamic'");
    expect(scriptSrc).not.toContain("unsafe-inline");
    expect(scriptSrc).not.toContain("unsafe-eval");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("object-src 'none'");
    expect(policy).not.toContain("upgrade-insecure-requests");
    expect(first.headers.get("x-content-type-options")).toBe("nosniff");
    expect(first.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(first.headers.get("x-frame-options")).toBe("DENY");
    expect(first.headers.get("strict-transport-security")).toBeNull();
    const html = await first.text();
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag).toContain(`nonce="${nonce}"`);
    const api = await fetch(`${plain.url}/api/health`);
    expect(api.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("[HEADERS][CSP]: every console page hydrates under the policy with no console error, and the policy blocks an injected inline handler", async () => {
    const page = await browser();
    const errors = await watchErrors(page);
    await page.goto(`${plain.url}/login`);
    await submitLogin(page, ADMIN);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    for (const [path, heading] of [
      ["/events", "Events"],
      ["/payments", "Payments"],
      ["/signatures", "Signature debugger"],
      ["/users", "Users"],
      ["/audit", "Audit log"],
    ]) {
      await page.goto(`${plain.url}${path}`);
      await page.getByRole("heading", { name: heading, exact: true }).first().waitFor();
    }
    // Client navigation and a client component's handler both need hydrated React.
    await page.getByRole("link", { name: "Overview" }).click();
    await page.waitForURL(`${plain.url}/`);
    expect(errors).toEqual([]);

    // What an HTML injection would try: an inline event handler. The policy refuses to run it.
    await page.evaluate(() =>
      document.body.insertAdjacentHTML("beforeend", '<img alt="" src="data:image/png;base64,AA" onerror="window.__injected = true">'),
    );
    await expect.poll(() => errors.some((error) => error.startsWith("CSP: script-src"))).toBe(true);
    expect(await page.evaluate(() => (window as unknown as { __injected?: boolean }).__injected)).toBeUndefined();

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/login/);
  });

  it("[AUTH][SESSION]: a session token captured before sign-out no longer works, nor one from before a role change", async () => {
    const session = await httpSignIn(plain.url, SUPPORT, PASSWORD);
    expect(session.status).toBe(200);
    const withCookie = (cookies: Map<string, string>) =>
      fetch(`${plain.url}/api/replays/999999`, { headers: { cookie: cookieHeader(cookies) } });
    expect((await withCookie(session.cookies)).status).toBe(403); // signed in, as support
    const captured = new Map(session.cookies);
    expect(await httpSignOut(plain.url, session)).toBe(200);
    expect((await withCookie(captured)).status).toBe(401);
    const page = await browser();
    await page.context().addCookies([...captured].map(([name, value]) => ({ name, value, url: plain.url })));
    await page.goto(`${plain.url}/`);
    expect(page.url()).toContain("/login");

    // next-auth's own endpoint no longer answers for it, nor hands back a refreshed cookie.
    const sessionAfter = await fetch(`${plain.url}/api/auth/session`, { headers: { cookie: cookieHeader(captured) } });
    expect(await sessionAfter.json()).toEqual({});
    expect(
      sessionAfter.headers
        .getSetCookie()
        .some((line) => /^next-auth\.session-token=[^;]+;/.test(line) && !/Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(line)),
    ).toBe(false);

    const again = await httpSignIn(plain.url, SUPPORT, PASSWORD);
    expect((await withCookie(again.cookies)).status).toBe(403);
    await app.pool.query("UPDATE users SET role = 'viewer', session_version = session_version + 1 WHERE email = $1", [SUPPORT]);
    expect((await withCookie(again.cookies)).status).toBe(401);
    await app.pool.query("UPDATE users SET role = 'support' WHERE email = $1", [SUPPORT]);
  });

  it("[AUTH][SESSION]: a session has an absolute lifetime: refreshed by use or not, it ends 8 hours after sign-in", async () => {
    const session = await httpSignIn(plain.url, SUPPORT, PASSWORD);
    const token = await decode({ token: session.cookies.get("next-auth.session-token"), secret: AUTH_SECRET });
    expect(token?.signedInAt).toEqual(expect.any(Number));
    const readSession = (value: string) =>
      fetch(`${plain.url}/api/auth/session`, { headers: { cookie: `next-auth.session-token=${value}` } }).then((r) => r.json());
    // The same token, as if signed in 8 hours ago and refreshed a moment ago (its expiry is still ahead).
    const fresh = await encode({ token: { ...token }, secret: AUTH_SECRET });
    const old = await encode({ token: { ...token, signedInAt: Math.floor(Date.now() / 1000) - 8 * 3600 - 1 }, secret: AUTH_SECRET });
    expect(await readSession(fresh)).toMatchObject({ user: { email: SUPPORT } });
    expect(await readSession(old)).toEqual({});
    const api = await fetch(`${plain.url}/api/replays/999999`, { headers: { cookie: `next-auth.session-token=${old}` } });
    expect(api.status).toBe(401);
  });

  it("[HEADERS][CACHE]: raw payloads, payment and replay answers are no-store, and a raw download is audited with the client's address", async () => {
    const body = JSON.stringify({
      id: "evt_cache_1",
      object: "event",
      type: "charge.succeeded",
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: "ch_cache_1",
          object: "charge",
          amount: 990,
          amount_refunded: 0,
          currency: "brl",
          status: "succeeded",
          receipt_email: "cache@example.com",
        },
      },
    });
    const answered = await postWebhook(plain.url, signedWebhook("stripe", "evt_cache_1", body, TEST_SECRETS.stripe));
    expect(answered.status).toBe(200);
    const inboxId = await waitFor(
      async () => {
        const { rows } = await app.pool.query(
          "SELECT w.id FROM webhook_inbox w JOIN payments p ON p.gateway_charge_id = w.resource_id WHERE w.event_id = 'evt_cache_1'",
        );
        return rows[0]?.id as number | undefined;
      },
      30_000,
      "the event to be processed",
    );
    const admin = cookieHeader((await httpSignIn(plain.url, ADMIN, PASSWORD)).cookies);
    const raw = await fetch(`${plain.url}/api/events/${inboxId}/raw`, { headers: { cookie: admin } });
    expect(raw.status).toBe(200);
    expect(await raw.text()).toBe(body);
    const payment = await fetch(`${plain.url}/api/payments/stripe/ch_cache_1`, { headers: { authorization: `Bearer ${API_TOKEN}` } });
    expect(payment.status).toBe(200);
    const replay = await fetch(`${plain.url}/api/replays/999999`, { headers: { cookie: admin } });
    for (const answer of [raw, payment, replay]) expect(answer.headers.get("cache-control"), answer.url).toBe("no-store");
    const { rows } = await app.pool.query("SELECT ip, details FROM audit_log WHERE actor = $1 AND action = 'raw_download'", [ADMIN]);
    expect(rows).toEqual([{ ip: "127.0.0.1", details: { eventId: inboxId, provider: "stripe" } }]);
  });

  it("[AUTH][PROXY]: without trusted proxies a forged X-Forwarded-For changes neither the audited address nor the limit", async () => {
    const victim = "forged@security.test";
    await createUser(app.prisma, { email: victim, role: "viewer", password: PASSWORD }, "e2e");
    for (let i = 0; i < 3; i++) {
      const attempt = await httpSignIn(plain.url, victim, "wrong password", { "x-forwarded-for": `198.51.100.${i}` });
      expect(attempt.status).toBe(401);
    }
    const locked = await httpSignIn(plain.url, victim, PASSWORD, { "x-forwarded-for": "198.51.100.99" });
    expect(locked.url).toContain("error=RateLimited");
    expect(new Set(await auditIps(victim))).toEqual(new Set(["127.0.0.1"]));
  });

  it("[AUTH][PROXY][HTTPS]: behind a trusted proxy the right-most untrusted address counts, one address's failures don't lock out another; cookies are Secure and HSTS is sent", async () => {
    const target = "owner@security.test";
    await createUser(app.prisma, { email: target, role: "admin", password: PASSWORD }, "e2e");
    const attacker = { "x-forwarded-for": "6.6.6.6, 203.0.113.66" }; // the left part is the client's own claim
    for (let i = 0; i < 3; i++) expect((await httpSignIn(behindProxy.url, target, "guess", attacker)).status).toBe(401);
    expect((await httpSignIn(behindProxy.url, target, PASSWORD, attacker)).url).toContain("error=RateLimited");
    const owner = await httpSignIn(behindProxy.url, target, PASSWORD, { "x-forwarded-for": "192.0.2.10" });
    expect(owner.status).toBe(200);
    expect(new Set(await auditIps(target))).toEqual(new Set(["203.0.113.66", "192.0.2.10"]));

    const sessionCookie = owner.setCookies.find((line) => line.startsWith("__Secure-next-auth.session-token="));
    expect(sessionCookie).toBeDefined();
    expect(sessionCookie).toMatch(/;\s*Secure/i);
    expect(sessionCookie).toMatch(/;\s*HttpOnly/i);
    expect(owner.cookies.has("__Host-next-auth.csrf-token")).toBe(true);

    const page = await fetch(`${behindProxy.url}/login`);
    expect(page.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
    expect(page.headers.get("content-security-policy")).toContain("upgrade-insecure-requests");
  });
});
