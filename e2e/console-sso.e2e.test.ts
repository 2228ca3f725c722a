import { generateKeyPairSync } from "node:crypto";
import { parseEnv } from "node:util";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/config/env";
import { confirmEnrolment, startEnrolment } from "@/lib/auth/two-factor";
import { updateUser } from "@/lib/auth/users";
import { horizontalOverflow, pageIn, rendered, screenshot } from "./harness/browser";
import { codeFor, wrongCodeFor } from "./harness/one-time-codes";
import { startConsoleWorld, type ConsoleWorld } from "./harness/console-world";
import { blocksRunBy } from "./harness/doc-blocks";
import { cookieHeader, csrfToken } from "./harness/http-session";
import { base64url, decodeJwt, providerRequest, signJwt, startIdentityProvider, type IdentityProvider } from "./harness/identity-provider";

// Single sign-on through the built app against a real OpenID Connect provider (panva's
// oidc-provider, its own login and consent pages, over https), with the settings docs/console.md
// gives (CONSOLE_REQUIRE_2FA=admin among them), in Chromium at 1440 and 390 px: the
// login page's button, sign-in with the role the provider's groups map to, the one-time code after
// the provider for a user with two-step sign-in on, a required enrolment that single sign-on doesn't
// satisfy, sign-out, and refusals (no mapped group, unknown to the console, disabled). Then, over
// plain HTTP, ID tokens the provider's answer carries tampered with, for another audience or issuer,
// with another nonce, unsigned, signed by another key, or expired: each refused, no session made.

const WIDE = { width: 1440, height: 900 };
const NARROW = { width: 390, height: 844 };
const AUTH_SECRET = "e2e-sso-auth-secret-0123456789abcdef012345";
// docs/console.md's settings, as a reader pastes them; the issuer and client are the provider's here.
const DOCUMENTED = parseEnv(blocksRunBy("e2e/console-sso.e2e.test.ts", "docs/console.md")[0]!.code) as Record<string, string>;
const PROVIDER_NAME = DOCUMENTED.OIDC_NAME!;

const ACCOUNTS = {
  "idp-ada": { email: "ada@sso.test", email_verified: true, name: "Ada", groups: ["staff", "console-admins"] },
  "idp-fin": { email: "fin@sso.test", email_verified: true, groups: ["finance-team"] },
  "idp-lee": { email: "lee@sso.test", email_verified: true, groups: ["console-admins"] },
  "idp-cas": { email: "cas@sso.test", email_verified: true, groups: ["contractors"] },
  "idp-str": { email: "stranger@sso.test", email_verified: true, groups: ["finance-team"] },
  "idp-dis": { email: "dis@sso.test", email_verified: true, groups: ["finance-team"] },
  "idp-tok": { email: "tok@sso.test", email_verified: true, groups: ["support-team"] },
};

let idp: IdentityProvider;
let world: ConsoleWorld;
let adaSecret: string;

beforeAll(async () => {
  idp = await startIdentityProvider(ACCOUNTS);
  world = await startConsoleWorld({
    label: "console_sso",
    // Their roles here before single sign-on; the provider's groups decide from the first sign-in on.
    users: {
      "owner@sso.test": "admin",
      "ada@sso.test": "viewer",
      "fin@sso.test": "viewer",
      "lee@sso.test": "support",
      "cas@sso.test": "support",
      "dis@sso.test": "finance",
      "tok@sso.test": "viewer",
    },
    env: {
      ...DOCUMENTED,
      AUTH_SECRET,
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: idp.clientId,
      OIDC_CLIENT_SECRET: idp.clientSecret,
      // The app trusts the provider's certificate as it would a private CA's.
      NODE_EXTRA_CA_CERTS: idp.certificateFile,
    },
    ignoreHTTPSErrors: true,
  });
  idp.registerClient(`${world.server.url}/api/auth/callback/oidc`);
  const owner = await world.app.prisma.user.findUniqueOrThrow({ where: { email: "owner@sso.test" } });
  const disabled = await world.app.prisma.user.findUniqueOrThrow({ where: { email: "dis@sso.test" } });
  await updateUser(world.app.prisma, { id: Number(disabled.id), disabled: true }, { name: "owner@sso.test", userId: Number(owner.id) });
  // Ada has two-step sign-in on, sealed under the app's own key.
  const deps = { ...world.app, config: loadConfig({ ...world.app.env, AUTH_SECRET }) };
  const ada = await world.app.prisma.user.findUniqueOrThrow({ where: { email: "ada@sso.test" } });
  adaSecret = (await startEnrolment(deps, Number(ada.id))).secret;
  await confirmEnrolment(deps, Number(ada.id), codeFor(adaSecret, -1), { name: "ada@sso.test" });
});
afterAll(async () => {
  await world?.close();
  await idp?.close();
});

/** From the login page through the provider's own sign-in and consent pages, back to the console. */
async function signInWithProvider(page: Page, login: string): Promise<void> {
  await page.goto(`${world.server.url}/login`);
  await page.getByRole("button", { name: `Sign in with ${PROVIDER_NAME}` }).click();
  await page.waitForURL(`${idp.issuer}/interaction/**`);
  await page.locator("input[name=login]").fill(login);
  await page.locator("input[name=password]").fill("any password: the provider's development pages take any");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL(`${world.server.url}/**`);
}

async function sessionOf(page: Page): Promise<Record<string, unknown>> {
  return (await page.request.get(`${world.server.url}/api/auth/session`)).json();
}

async function auditOf(email: string): Promise<string[]> {
  const { rows } = await world.app.pool.query(
    `SELECT action, details->>'method' AS method, COALESCE(details->>'reason', details->>'factor', details->>'role') AS detail
       FROM audit_log WHERE actor = $1 OR details->>'email' = $1 ORDER BY id`,
    [email],
  );
  return rows.map((row) => [row.action, row.method, row.detail].filter(Boolean).join(" "));
}

describe("single sign-on in the browser", () => {
  it.each([
    ["1440", WIDE],
    ["390", NARROW],
  ])("[SSO]: the login page offers 'Sign in with' the provider beside the password form (%s px)", async (width, viewport) => {
    const page = await pageIn(await world.openBrowser(viewport));
    await page.goto(`${world.server.url}/login`);
    const button = page.getByRole("button", { name: `Sign in with ${PROVIDER_NAME}` });
    await button.waitFor();
    expect(await page.getByLabel("E-mail").isVisible()).toBe(true);
    const box = (await button.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(viewport.width);
    await screenshot(page, `sso-login-${width}`);
    expect(await horizontalOverflow(page)).toBe(0);
  });

  it("[SSO][ADMIN][2FA]: signs in through the provider's pages, gives the one-time code after it, and lands as the admin its groups map to; sign-out ends the session (1440 px)", async () => {
    const page = await pageIn(await world.openBrowser(WIDE));
    await signInWithProvider(page, "idp-ada");
    // The provider said who she is; the console's own second step still follows, before any session.
    await page.waitForURL(/\/login\?sso=/);
    await page.getByText("Signed in with single sign-on as ada@sso.test").waitFor();
    expect(await sessionOf(page)).toEqual({});
    await screenshot(page, "sso-code-step-1440");
    await page.getByLabel("One-time code").fill(wrongCodeFor(adaSecret));
    await page.getByRole("button", { name: "Verify" }).click();
    await expect.poll(() => page.locator("form [role=alert]").textContent()).toContain("not right or was already used");
    await page.getByLabel("One-time code").fill(codeFor(adaSecret));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.waitForURL(`${world.server.url}/`);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await rendered(page);
    expect(await page.locator(".who strong").textContent()).toBe("admin");
    expect(await page.locator("nav[aria-label=Console]").getByRole("link", { name: "Users" }).isVisible()).toBe(true);
    expect(await sessionOf(page)).toMatchObject({ user: { email: "ada@sso.test", role: "admin" } });

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/login/);
    expect(await sessionOf(page)).toEqual({});
    await page.goto(`${world.server.url}/events`);
    await page.waitForURL(/\/login/);
    // A ticket that doesn't open (forged, or past its five minutes) asks to start again.
    await page.goto(`${world.server.url}/login?sso=v1.forged.ticket.text`);
    await expect.poll(() => page.locator("form [role=alert]").textContent()).toContain("took too long or is no longer valid");
    expect(await page.getByLabel("One-time code").count()).toBe(0);
    expect(await auditOf("ada@sso.test")).toEqual([
      "user_created viewer",
      "two_factor_enabled",
      "sso_linked",
      "user_updated admin",
      "login_failed oidc wrong_code",
      "login oidc one-time code",
      "logout",
    ]);
  });

  it("[SSO][FINANCE]: lands in the console as finance, signs out, and signs in again on the provider's session alone (390 px)", async () => {
    const page = await pageIn(await world.openBrowser(NARROW));
    await signInWithProvider(page, "idp-fin");
    await page.waitForURL(`${world.server.url}/`);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await page.getByRole("button", { name: "Menu" }).click();
    expect(await page.locator(".who strong").textContent()).toBe("finance");
    expect(await page.locator("nav[aria-label=Console]").getByRole("link", { name: "Replays" }).isVisible()).toBe(true);
    expect(await page.locator("nav[aria-label=Console]").getByRole("link", { name: "Users" }).count()).toBe(0);
    await screenshot(page, "sso-finance-390");
    expect(await horizontalOverflow(page)).toBe(0);
    // A finance user's session reads like a password user's: pages outside the role answer 403.
    expect((await page.goto(`${world.server.url}/users`))?.status()).toBe(403);

    await page.goto(`${world.server.url}/`);
    await page.getByRole("button", { name: "Menu" }).click();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/login/);
    expect(await sessionOf(page)).toEqual({});
    // Signed out here, still signed in at the provider (its session and the consent given): one click.
    await page.getByRole("button", { name: `Sign in with ${PROVIDER_NAME}` }).click();
    await page.waitForURL(`${world.server.url}/`);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    expect(await sessionOf(page)).toMatchObject({ user: { email: "fin@sso.test", role: "finance" } });
  });

  it("[SSO][2FA]: an admin by the provider's groups without one-time codes is held at enrolment: single sign-on doesn't satisfy CONSOLE_REQUIRE_2FA (1440 px)", async () => {
    const page = await pageIn(await world.openBrowser(WIDE));
    await signInWithProvider(page, "idp-lee");
    await page.waitForURL(/\/account$/);
    await expect.poll(() => page.getByTestId("pending-step").textContent()).toContain("Two-step sign-in is required");
    expect(await page.locator("nav[aria-label=Console] a").count()).toBe(0);
    await page.goto(`${world.server.url}/users`);
    await page.waitForURL(/\/account$/);
    expect(await page.locator(".who strong").textContent()).toBe("admin");
  });

  it.each([
    ["idp-cas", "cas@sso.test", "no_role", NARROW],
    ["idp-str", "stranger@sso.test", "unknown_user", WIDE],
    ["idp-dis", "dis@sso.test", "disabled", NARROW],
  ])("[SSO][REFUSED]: %s (%s, %s) is refused at the login page, with no session", async (login, email, reason, viewport) => {
    const page = await pageIn(await world.openBrowser(viewport));
    await signInWithProvider(page, login);
    await page.waitForURL(/\/login\?error=SsoRefused/);
    await expect.poll(() => page.locator("form [role=alert]").textContent()).toContain("gives you no access to this console");
    await screenshot(page, `sso-refused-${reason}-${viewport.width}`);
    expect(await horizontalOverflow(page)).toBe(0);
    expect(await sessionOf(page)).toEqual({});
    await page.goto(`${world.server.url}/events`);
    await page.waitForURL(/\/login/);
    expect((await auditOf(email)).filter((line) => line.startsWith("login"))).toEqual([`login_failed oidc ${reason}`]);
  });
});

// The code flow over plain HTTP, as a browser would run it: the app's sign-in start, the provider's
// login and consent forms, and back to the app's callback, whose answer is returned.
async function signInOverHttp(login: string): Promise<{ location: string; cookies: Map<string, string> }> {
  const cookies = new Map<string, string>();
  const keep = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      cookies.set(pair!.slice(0, pair!.indexOf("=")), pair!.slice(pair!.indexOf("=") + 1));
    }
  };
  const csrf = await csrfToken(world.server.url, cookies);
  const start = await fetch(`${world.server.url}/api/auth/signin/oidc`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie: cookieHeader(cookies), "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken: csrf, callbackUrl: `${world.server.url}/`, json: "true" }),
  });
  keep(start);
  let next = ((await start.json()) as { url: string }).url;
  expect(next.startsWith(`${idp.issuer}/auth?`)).toBe(true);
  const providerCookies = new Map<string, string>();
  let form: { action: string; fields: Record<string, string> } | null = null;
  for (let hop = 0; hop < 20 && !next.startsWith(world.server.url); hop++) {
    const answer = await providerRequest(idp, next, {
      method: form ? "POST" : "GET",
      headers: { cookie: cookieHeader(providerCookies), ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      body: form ? new URLSearchParams(form.fields).toString() : undefined,
    });
    for (const line of [answer.headers["set-cookie"] ?? []].flat()) {
      const [pair] = line.split(";");
      providerCookies.set(pair!.slice(0, pair!.indexOf("=")), pair!.slice(pair!.indexOf("=") + 1));
    }
    form = null;
    if (answer.status >= 300 && answer.status < 400) {
      next = new URL(answer.headers.location!, next).toString();
      continue;
    }
    // The provider's own page: its login form (any password), or its consent form.
    const action = /<form[^>]*action="([^"]+)"/.exec(answer.body)?.[1];
    if (answer.status !== 200 || !action) throw new Error(`the provider answered ${answer.status}: ${answer.body.slice(0, 300)}`);
    const fields = Object.fromEntries(
      [...answer.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    if (/name="login"/.test(answer.body)) Object.assign(fields, { login, password: "any" });
    form = { action, fields };
    next = new URL(action, next).toString();
  }
  // The callback, and next-auth's own error route if it sends there: where the browser lands.
  for (let hop = 0; hop < 3 && new URL(next).pathname.startsWith("/api/auth/"); hop++) {
    const answer = await fetch(next, { redirect: "manual", headers: { cookie: cookieHeader(cookies) } });
    keep(answer);
    next = new URL(answer.headers.get("location")!, world.server.url).toString();
  }
  return { location: next, cookies };
}

/** The page and error code a sign-in ended on. */
const landing = (location: string) => ({ path: new URL(location).pathname, error: new URL(location).searchParams.get("error") });

async function httpSession(cookies: Map<string, string>): Promise<Record<string, unknown>> {
  return (await fetch(`${world.server.url}/api/auth/session`, { headers: { cookie: cookieHeader(cookies) } })).json();
}

describe("single sign-on's ID token, checked before anything else", () => {
  const reSigned = (change: (payload: Record<string, unknown>) => Record<string, unknown>) => (token: string) => {
    const { header, payload } = decodeJwt(token);
    return signJwt(header, change(payload), idp.signingKey.privateKey);
  };
  const stranger = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey;
  const cases: [string, (token: string) => string][] = [
    ["its signature altered", (token) => `${token.slice(0, -6)}${token.slice(-6) === "AAAAAA" ? "BBBBBB" : "AAAAAA"}`],
    [
      "its claims altered under the provider's signature (another subject)",
      (token) => {
        const [header, payload, signature] = token.split(".");
        const claims = JSON.parse(Buffer.from(payload!, "base64url").toString("utf8")) as Record<string, unknown>;
        return [header, base64url({ ...claims, sub: "idp-ada" }), signature].join(".");
      },
    ],
    ["signed by the provider for another client (audience)", reSigned((payload) => ({ ...payload, aud: "another-client" }))],
    ["signed by the provider under another issuer", reSigned((payload) => ({ ...payload, iss: "https://other-issuer.test" }))],
    ["signed by the provider with another sign-in's nonce", reSigned((payload) => ({ ...payload, nonce: "another-nonce" }))],
    ["signed by the provider but expired", reSigned((payload) => ({ ...payload, iat: 1_700_000_000, exp: 1_700_000_600 }))],
    [
      "unsigned (alg none)",
      (token) => {
        const { header, payload } = decodeJwt(token);
        return `${base64url({ ...header, alg: "none" })}.${base64url(payload)}.`;
      },
    ],
    [
      "signed by a stranger's key under the provider's key id",
      (token) => {
        const { header, payload } = decodeJwt(token);
        return signJwt(header, payload, stranger);
      },
    ],
  ];

  it.each(cases)("[SSO][TOKEN]: an ID token %s is refused: no session, no sign-in audited", async (_name, rewrite) => {
    idp.rewriteIdTokens(rewrite);
    try {
      const { location, cookies } = await signInOverHttp("idp-tok");
      expect(landing(location)).toEqual({ path: "/login", error: "OAuthCallback" });
      expect([...cookies.keys()].some((name) => name.includes("session-token"))).toBe(false);
      expect(await httpSession(cookies)).toEqual({});
    } finally {
      idp.rewriteIdTokens(null);
    }
    expect((await auditOf("tok@sso.test")).filter((line) => line.startsWith("login"))).toEqual([]);
  });

  it("[SSO][TOKEN]: the same flow with the provider's token untouched signs in (the refusals above are the token's)", async () => {
    const { location, cookies } = await signInOverHttp("idp-tok");
    expect(landing(location)).toEqual({ path: "/", error: null });
    expect(await httpSession(cookies)).toMatchObject({ user: { email: "tok@sso.test", role: "support" } });
    expect((await auditOf("tok@sso.test")).filter((line) => line.startsWith("login"))).toEqual(["login oidc"]);
  });

  it("[SSO][TOKEN]: another account at the provider carrying a linked user's e-mail is not that user", async () => {
    // tok@sso.test is linked to idp-tok now.
    idp.accounts.set("idp-tok-2", { email: "tok@sso.test", email_verified: true, groups: ["console-admins"] });
    const { location, cookies } = await signInOverHttp("idp-tok-2");
    expect(landing(location)).toEqual({ path: "/login", error: "SsoRefused" });
    expect(await httpSession(cookies)).toEqual({});
    expect((await auditOf("tok@sso.test")).at(-1)).toBe("login_failed oidc linked_elsewhere");
  });
});
