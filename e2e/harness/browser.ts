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

/**
 * A fresh browser profile (one per user role, so sessions don't mix). `ignoreHTTPSErrors`: for a
 * test's own https server with a certificate made for the run (the identity provider's). `touch`: a
 * phone's touch screen (a coarse pointer that can't hover) instead of a mouse.
 */
export async function openBrowser(
  viewport = { width: 1360, height: 900 },
  options: { ignoreHTTPSErrors?: boolean; touch?: boolean; scripts?: boolean } = {},
): Promise<BrowserContext> {
  return chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "webhook-inbox-e2e-")), {
    executablePath: chromiumPath(),
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    timezoneId: "America/Sao_Paulo",
    ignoreHTTPSErrors: options.ignoreHTTPSErrors ?? false,
    hasTouch: options.touch ?? false,
    isMobile: options.touch ?? false,
    javaScriptEnabled: options.scripts ?? true,
  });
}

export async function signIn(context: BrowserContext, baseUrl: string, email: string, password: string): Promise<Page> {
  const page = await pageIn(context);
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

/**
 * Waits until the page shows what its URL asks for: loaded, with no loading skeleton (a streamed
 * page's or a client navigation's) and no table waiting for its rows. The reads that don't retry
 * (count, allTextContents, evaluate, layout) take the page as it is, which on a loaded machine can
 * still be the skeleton after the URL has changed.
 */
export async function rendered(page: Page): Promise<void> {
  await page.waitForFunction(() => document.readyState === "complete" && !document.querySelector("[aria-busy=true]"));
}

/** The rendered page's horizontal overflow in CSS pixels (0 when nothing is cut or scrolls sideways). */
export async function horizontalOverflow(page: Page): Promise<number> {
  await rendered(page);
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/** The context's first page (a persistent context opens with one), or a new one. */
export async function pageIn(context: BrowserContext): Promise<Page> {
  return context.pages()[0] ?? (await context.newPage());
}
