import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@/lib/auth/users";
import { horizontalOverflow, openBrowser, pageIn, rendered, screenshot } from "./harness/browser";
import { codeFor, wrongCodeFor } from "./harness/one-time-codes";
import { CONSOLE_PASSWORD, startConsoleWorld, type ConsoleWorld } from "./harness/console-world";

// Console access through the built app in Chromium, at 1440 and 390 px: two-step sign-in required
// for admins (CONSOLE_REQUIRE_2FA=admin) and taken up by a viewer by choice, sign-in with password
// and code (the codes made with the same library, from the key the page shows), a wrong or reused
// code refused, a generated password replaced before the console opens, and "sign out my other
// sessions" ending another browser's session while this one stays.

const ADMIN = "admin@access.test";
const VIEWER = "viewer@access.test";
const WIDE = { width: 1440, height: 900 };
const NARROW = { width: 390, height: 844 };

let world: ConsoleWorld;

beforeAll(async () => {
  world = await startConsoleWorld({
    label: "console_access",
    users: { [ADMIN]: "admin", [VIEWER]: "viewer" },
    env: { CONSOLE_REQUIRE_2FA: "admin" },
  });
});
afterAll(async () => world?.close());

/** The login form's first step; returns once the server answered (signed in, or asking for a code). */
async function submitPassword(page: Page, email: string, password: string): Promise<void> {
  await page.goto(`${world.server.url}/login`);
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function submitCode(page: Page, code: string): Promise<void> {
  await page.getByLabel("One-time code").fill(code);
  await page.getByRole("button", { name: "Verify" }).click();
}

/** On narrow screens the sidebar (account link, sign-out) is behind the Menu button. */
async function openSidebar(page: Page): Promise<void> {
  const toggle = page.getByRole("button", { name: "Menu" });
  if (await toggle.isVisible()) await toggle.click();
}

/** Enrols from the account page; returns the key the page showed and the recovery codes. */
async function enrol(page: Page, shot: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  await page.getByRole("button", { name: "Set up two-step sign-in" }).click();
  const secret = (await page.getByTestId("totp-secret").textContent())!.trim();
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  expect(await page.getByTestId("totp-uri").getAttribute("href")).toContain(`secret=${secret}`);
  await expect
    .poll(() => page.getByRole("img", { name: /QR code/ }).evaluate((img: HTMLImageElement) => img.naturalWidth))
    .toBeGreaterThan(0);
  await screenshot(page, `${shot}-enrol`);
  expect(await horizontalOverflow(page)).toBe(0);
  await page.getByLabel("Code from the app").fill(wrongCodeFor(secret));
  await page.getByRole("button", { name: "Turn on" }).click();
  await expect.poll(() => page.locator("section [role=alert]").textContent()).toContain("not right");
  await page.getByLabel("Code from the app").fill(codeFor(secret));
  await page.getByRole("button", { name: "Turn on" }).click();
  await page.getByTestId("recovery-codes").waitFor();
  const recoveryCodes = (await page.getByTestId("recovery-codes").locator("code").allTextContents()).map((code) => code.trim());
  expect(recoveryCodes).toHaveLength(10);
  await screenshot(page, `${shot}-recovery-codes`);
  expect(await horizontalOverflow(page)).toBe(0);
  await page.getByRole("button", { name: "Done" }).click();
  await page.getByText(/On: signing in asks for a code/).waitFor();
  return { secret, recoveryCodes };
}

describe("console access", () => {
  it("[ACCESS][2FA]: an admin under CONSOLE_REQUIRE_2FA=admin enrols first, then signs in with password and code; wrong and reused codes are refused (1440 px)", async () => {
    const page = await pageIn(await world.openBrowser(WIDE));
    await submitPassword(page, ADMIN, CONSOLE_PASSWORD);
    // Held at the account page: no navigation, and any other page sends back here.
    await page.waitForURL(/\/account$/);
    await expect.poll(() => page.getByTestId("pending-step").textContent()).toContain("Two-step sign-in is required");
    expect(await page.locator("nav[aria-label=Console] a").count()).toBe(0);
    await page.goto(`${world.server.url}/users`);
    await page.waitForURL(/\/account$/);
    const { secret } = await enrol(page, "access-admin-1440");
    // Enrolled: the console is open, and two-step sign-in can't be turned off here.
    await page.getByText("Required for your role here").waitFor();
    await page.goto(`${world.server.url}/users`);
    await page.getByRole("heading", { name: "Users" }).waitFor();

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/login/);
    await submitPassword(page, ADMIN, CONSOLE_PASSWORD);
    await page.getByLabel("One-time code").waitFor();
    await screenshot(page, "access-code-step-1440");
    await submitCode(page, wrongCodeFor(secret));
    await expect.poll(() => page.locator("form [role=alert]").textContent()).toContain("not right or was already used");
    // The enrolment used this step's code; the next step's is accepted (one step of drift).
    const code = codeFor(secret, 1);
    await submitCode(page, code);
    await page.waitForURL(`${world.server.url}/`);
    await page.getByRole("heading", { name: "Overview" }).waitFor();

    // The same code again, from another browser: refused.
    const other = await pageIn(await world.openBrowser(WIDE));
    await submitPassword(other, ADMIN, CONSOLE_PASSWORD);
    await submitCode(other, code);
    await expect.poll(() => other.locator("form [role=alert]").textContent()).toContain("already used");
    expect(other.url()).toContain("/login");

    const { rows } = await world.app.pool.query(
      "SELECT action, details->>'reason' AS reason, details->>'factor' AS factor FROM audit_log WHERE actor = $1 ORDER BY id",
      [ADMIN],
    );
    expect(rows.map((row) => [row.action, row.reason ?? row.factor].filter(Boolean).join(":"))).toEqual([
      "login",
      "two_factor_enabled",
      "logout",
      "login_failed:wrong_code",
      "login:one-time code",
      "login_failed:wrong_code",
    ]);
  });

  it("[ACCESS][2FA]: a viewer takes up two-step sign-in by choice and signs in with a recovery code once (390 px)", async () => {
    const page = await world.browserAs(VIEWER, NARROW);
    await openSidebar(page);
    await page.getByRole("link", { name: VIEWER }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    expect(await page.getByTestId("pending-step").count()).toBe(0);
    const { recoveryCodes } = await enrol(page, "access-viewer-390");
    await screenshot(page, "access-account-390");
    expect(await horizontalOverflow(page)).toBe(0);

    const fresh = await pageIn(await world.openBrowser(NARROW));
    await submitPassword(fresh, VIEWER, CONSOLE_PASSWORD);
    await submitCode(fresh, recoveryCodes[0]!);
    await fresh.getByRole("heading", { name: "Overview" }).waitFor();
    const again = await pageIn(await world.openBrowser(NARROW));
    await submitPassword(again, VIEWER, CONSOLE_PASSWORD);
    await submitCode(again, recoveryCodes[0]!);
    await expect.poll(() => again.locator("form [role=alert]").textContent()).toContain("already used");
    await screenshot(again, "access-code-refused-390");
    expect(await horizontalOverflow(again)).toBe(0);
  });

  it.each([
    ["1440", WIDE],
    ["390", NARROW],
  ])("[ACCESS][PASSWORD]: a generated password is replaced before the console opens (%s px)", async (width, viewport) => {
    const email = `generated-${width}@access.test`;
    const { password } = await createUser(world.app.prisma, { email, role: "support" }, ADMIN);
    const page = await pageIn(await world.openBrowser(viewport));
    await submitPassword(page, email, password);
    await page.waitForURL(/\/account$/);
    await expect.poll(() => page.getByTestId("pending-step").textContent()).toContain("generated for you");
    await page.goto(`${world.server.url}/events`);
    await page.waitForURL(/\/account$/);
    // What an action or a console route answers meanwhile: 403.
    expect((await page.request.get(`${world.server.url}/api/exports/events`)).status()).toBe(403);
    await screenshot(page, `access-change-password-${width}`);
    expect(await horizontalOverflow(page)).toBe(0);

    await page.getByLabel("Current password").fill(password);
    await page.getByLabel("New password (12+ characters)").fill("a password of my own");
    await page.getByLabel("New password again").fill("a password of my own");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.waitForURL(/\/login\?notice=password-changed/);
    await expect.poll(() => page.locator("form [role=status]").textContent()).toContain("Sign in with the new password");
    await submitPassword(page, email, password);
    await expect.poll(() => page.locator("form [role=alert]").textContent()).toContain("Wrong e-mail or password");
    await submitPassword(page, email, "a password of my own");
    await page.waitForURL(`${world.server.url}/`);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
  });

  it("[ACCESS][BEFORE-SCRIPTS]: a sign-in sent before the page's scripts run is a POST: the password is in no URL (1440 px)", async () => {
    // No scripts at all: the browser sends the form itself, as it does when a password manager
    // submits before the page hydrates.
    const context = await openBrowser(WIDE, { scripts: false });
    try {
      const page = await pageIn(context);
      const urls: string[] = [];
      page.on("request", (request) => urls.push(request.url()));
      await page.goto(`${world.server.url}/login`);
      await page.getByLabel("E-mail").fill(ADMIN);
      await page.getByLabel("Password", { exact: true }).fill(CONSOLE_PASSWORD);
      const sent = page.waitForRequest((request) => request.isNavigationRequest());
      await page.getByLabel("Password", { exact: true }).press("Enter");
      expect((await sent).method()).toBe("POST");
      await page.waitForLoadState();
      const secrets = [CONSOLE_PASSWORD, encodeURIComponent(CONSOLE_PASSWORD), "password="];
      expect(urls.filter((url) => secrets.some((secret) => url.includes(secret)))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("[ACCESS][SESSIONS]: sign out my other sessions ends another browser's session and keeps this one (1440 and 390 px)", async () => {
    const email = "sessions@access.test";
    await createUser(world.app.prisma, { email, role: "support", password: CONSOLE_PASSWORD }, ADMIN);
    const here = await world.browserAs(email, WIDE);
    const there = await world.browserAs(email, NARROW);
    await here.goto(`${world.server.url}/account`);
    await here.getByRole("button", { name: "Sign out my other sessions" }).click();
    await expect.poll(() => here.locator("section [role=status]").textContent()).toContain("Your other sessions are signed out");
    await screenshot(here, "access-sessions-1440");

    await there.goto(`${world.server.url}/events`);
    await there.waitForURL(/\/login/);
    await here.goto(`${world.server.url}/events`);
    await rendered(here);
    await here.getByRole("heading", { name: "Events" }).waitFor();
    // And it keeps working past the next session refresh.
    await here.reload();
    await here.getByRole("heading", { name: "Events" }).waitFor();
    const { rows } = await world.app.pool.query(
      "SELECT count(*)::int AS n FROM audit_log WHERE actor = $1 AND action = 'other_sessions_ended'",
      [email],
    );
    expect(rows[0].n).toBe(1);
  });
});
