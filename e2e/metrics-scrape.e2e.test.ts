import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/lib/db/embedded";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";
import { waitFor } from "@/lib/testing/test-worker";
import { startAppServer, stopChild, type AppServer } from "./harness/app-server";

// /api/metrics as a scraper sees it: through the running web server and its proxy, scraped by
// Debian's Prometheus with the bearer token (.ci/run installs it), its text checked by promtool.

const METRICS_TOKEN = "metrics-e2e-token-0123456789abcdef";

let app: TestApp;
let server: AppServer;
let prometheus: ChildProcess | undefined;
let workDir: string;

beforeAll(async () => {
  app = await createTestApp("metrics_scrape", {});
  server = await startAppServer({ DATABASE_URL: app.db.url, AUTH_SECRET: "metrics-e2e-auth-secret-0123456789abcdef0", METRICS_TOKEN });
  workDir = mkdtempSync(join(tmpdir(), "webhook-inbox-prometheus-"));
}, 240_000);

afterAll(async () => {
  if (prometheus) await stopChild(prometheus);
  await server?.stop();
  await app?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

type Target = { health: string; lastError: string; scrapeUrl: string };

describe("metrics", () => {
  it("[OPS][METRICS]: the bearer token reads Prometheus text through the proxy, without it 401 (never a sign-in redirect)", async () => {
    const anonymous = await fetch(`${server.url}/api/metrics`, { redirect: "manual" });
    expect(anonymous.status).toBe(401);
    const scraped = await fetch(`${server.url}/api/metrics`, { redirect: "manual", headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get("content-type")).toContain("text/plain");
    const text = await scraped.text();
    // promtool exits 1 on text it can't parse, 3 on lint problems. prom-client's default process
    // gauges are named *_total (its choice, not ours): the only lint tolerated, none of our own.
    const check = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
    expect(check.error).toBeUndefined();
    const problems = `${check.stdout}${check.stderr}`.split("\n").filter((line) => line.trim() !== "");
    expect([0, 3], problems.join("\n")).toContain(check.status);
    for (const problem of problems)
      expect(problem).toMatch(/^webhook_inbox_process_nodejs_\w+_total non-counter metrics should not have "_total" suffix$/);
  });

  it("[OPS][METRICS][RULES]: the shipped alert rules pass promtool's check and their tests, on metrics the web really serves", async () => {
    for (const args of [
      ["check", "rules", "alerts.yml"],
      ["test", "rules", "alerts.test.yml"],
    ]) {
      const run = spawnSync("promtool", args, { cwd: "docs/prometheus", encoding: "utf8" });
      expect(run.error).toBeUndefined();
      expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
    }
    // A rule on a metric nobody serves never fires: every name the rules read is in the scrape.
    const text = await (await fetch(`${server.url}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
    const served = new Set(text.split("\n").flatMap((line) => /^# TYPE (\S+)/.exec(line)?.[1] ?? []));
    const used = new Set(readFileSync("docs/prometheus/alerts.yml", "utf8").match(/webhook_inbox_\w+/g));
    expect([...used].filter((name) => !served.has(name))).toEqual([]);
    expect(used.size).toBeGreaterThanOrEqual(4);
  });

  it("[OPS][METRICS][PROMETHEUS]: a real Prometheus scraping the running web reports the target up", async () => {
    const { host } = new URL(server.url);
    const port = await freePort();
    writeFileSync(join(workDir, "token"), METRICS_TOKEN, { mode: 0o600 });
    writeFileSync(
      join(workDir, "prometheus.yml"),
      [
        "global:",
        "  scrape_interval: 1s",
        "  scrape_timeout: 1s",
        "scrape_configs:",
        "  - job_name: webhook-inbox",
        "    metrics_path: /api/metrics",
        "    authorization:",
        `      credentials_file: ${join(workDir, "token")}`,
        "    static_configs:",
        `      - targets: ["${host}"]`,
        "",
      ].join("\n"),
    );
    const logs: string[] = [];
    prometheus = spawn(
      "prometheus",
      [
        `--config.file=${join(workDir, "prometheus.yml")}`,
        `--storage.tsdb.path=${join(workDir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    prometheus.stdout?.on("data", (chunk) => logs.push(String(chunk)));
    prometheus.stderr?.on("data", (chunk) => logs.push(String(chunk)));
    const scraped = await waitFor(
      async () => {
        const answer = await fetch(`http://127.0.0.1:${port}/api/v1/targets`).catch(() => null);
        if (!answer?.ok) return null;
        const { data } = (await answer.json()) as { data: { activeTargets: Target[] } };
        const target = data.activeTargets[0];
        return target && target.health !== "unknown" ? target : null;
      },
      30_000,
      "Prometheus to scrape the web once",
    ).catch((error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${logs.join("")}`);
    });
    expect(scraped.lastError).toBe("");
    expect(scraped.health).toBe("up");
    expect(scraped.scrapeUrl).toBe(`${server.url}/api/metrics`);
  });
});
