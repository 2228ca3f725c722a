import { mkdtempSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";

export const ARTIFACTS = "e2e/artifacts";

// Debian's Chromium, headless, with the flags that keep it off the (closed) network.
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
}

/** A fresh browser profile (one per user role, so sessions don't mix). */
export async function openBrowser(viewport = { width: 1360, height: 900 }): Promise<BrowserContext> {
  return chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "webhook-inbox-e2e-")), {
    executablePath: chromiumPath(),
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    timezoneId: "America/Sao_Paulo",
  });
}

export async function signIn(context: BrowserContext, baseUrl: string, email: string, password: string): Promise<Page> {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${baseUrl}/`);
  await page.getByRole("heading", { name: "Overview" }).waitFor();
  return page;
}

export async function screenshot(page: Page, name: string, fullPage = true): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage, animations: "disabled", caret: "initial" });
}
