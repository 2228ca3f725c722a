import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/lib/db/embedded";
import { waitFor } from "@/lib/testing/test-worker";
import { openBrowser, signIn } from "./harness/browser";

// `npm run dev` as a developer runs it (no DATABASE_URL, no DATA_DIR: the embedded database in its
// default place), then the console in Chromium for a while. `next dev` watches the checkout: a data
// directory inside it, written on every page view, made the HMR socket send "reloadPage" (a full
// reload 1-2 times a second), so forms and searches lost what was typed. Meanwhile the browser
// console must stay quiet: no React warning (keys, hydration) on the sign-in page or the lists.

const PAGES = ["Events", "Payments", "Destinations", "Overview"];
const BROWSE_MS = 25_000;

const parent = mkdtempSync(join(tmpdir(), "inbox-dev-"));
// As root the embedded PostgreSQL runs as `postgres`, which must reach the data directory.
chmodSync(parent, 0o755);
let dev: ChildProcess | undefined;
let output = "";
let baseUrl = "";
let context: BrowserContext | undefined;
// What the browser console said (errors and warnings) from the sign-in page on: React's development
// warnings (a list without keys, a hydration mismatch) show only under `next dev`.
const consoleProblems: string[] = [];

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://localhost:${port}`;
  const child = spawn("npm", ["run", "dev"], {
    env: {
      NODE_ENV: "development",
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      XDG_DATA_HOME: parent,
      PORT: String(port),
      EMBEDDED_POSTGRES_PORT: String(await freePort()),
    },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  dev = child;
  child.stdout.on("data", (chunk) => (output += String(chunk)));
  child.stderr.on("data", (chunk) => (output += String(chunk)));
  await waitFor(
    async () =>
      fetch(`${baseUrl}/api/health`).then(
        (response) => response.ok,
        () => false,
      ),
    180_000,
    "npm run dev to answer",
  );
  // next dev compiles each route on its first request, slowly on a busy machine.
  await waitFor(async () => (await fetch(`${baseUrl}/login`)).ok, 180_000, "the login page to compile");
}, 240_000);

afterAll(async () => {
  await context?.close();
  if (dev?.exitCode === null) {
    const exited = new Promise((done) => dev!.once("exit", done));
    process.kill(-dev.pid!, "SIGTERM");
    await exited;
  }
  // The embedded PostgreSQL got the signal too and ends its shutdown in its own time; its
  // postmaster.pid goes last. Removing the directory before that races with its last writes.
  const running = () => readdirSync(parent, { recursive: true }).some((path) => String(path).endsWith("postmaster.pid"));
  await waitFor(async () => !running(), 60_000, "the embedded PostgreSQL to stop");
  rmSync(parent, { recursive: true, force: true });
}, 90_000);

describe("npm run dev under page views", () => {
  it("keeps its database outside the tree Next watches", () => {
    expect(output).toMatch(new RegExp(`data in ${parent}/webhook-inbox/`));
  });

  it("never reloads the console while pages are browsed", { timeout: 480_000 }, async () => {
    const admin = /Sign in as (\S+) with password: (\S+)/.exec(output);
    expect(admin, output).not.toBeNull();
    context = await openBrowser();
    context.setDefaultTimeout(120_000);
    context.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") consoleProblems.push(`${message.page()?.url()}: ${message.text()}`);
    });
    const page = await signIn(context, baseUrl, admin![1]!, admin![2]!);
    const open = async (label: string) => {
      const link = page.getByRole("link", { name: label, exact: true });
      await link.click();
      await link.and(page.locator('[aria-current="page"]')).waitFor();
      await page.waitForLoadState("networkidle");
    };
    // Each page compiled once first: a first compile is not what is measured.
    for (const label of PAGES) await open(label);

    let loads = 0;
    const reloadMessages: string[] = [];
    page.on("load", () => loads++);
    page.on("console", (message) => {
      if (/reload/i.test(message.text())) reloadMessages.push(message.text());
    });
    // A full reload starts a new document: this marker goes with the old one.
    await page.evaluate(() => Object.assign(window, { devConsoleMarker: "kept" }));
    const until = Date.now() + BROWSE_MS;
    let views = 0;
    while (Date.now() < until) {
      await open(PAGES[views % PAGES.length]!);
      views++;
    }
    await page.waitForTimeout(2_000);
    expect({ views: views >= 5, loads, reloadMessages }).toEqual({ views: true, loads: 0, reloadMessages: [] });
    expect(await page.evaluate(() => (window as { devConsoleMarker?: string }).devConsoleMarker)).toBe("kept");
  });

  it("logs no React warning or error on the sign-in page and the pages browsed (lists with pagers included)", () => {
    expect(consoleProblems).toEqual([]);
  });
});
