import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseEnv } from "node:util";
import { encode } from "next-auth/jwt";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_WEB_HEAP_LIMIT_MB } from "@/lib/config/env";
import { freePort } from "@/lib/db/embedded";
import { waitFor } from "@/lib/testing/test-worker";
import { allProcStats } from "./harness/proc-stat";
import { signedWebhook } from "@/lib/testing/gateway-events";
import { postWebhook } from "./simulator/send-webhooks";

// `NODE_ENV=production npm start` with no configuration at all, as an operator would run it: the
// launcher starts the embedded database, generates its secrets into the data directory, creates no
// demo admin, and none of .env.example's development values opens anything.

const parent = mkdtempSync(join(tmpdir(), "inbox-production-"));
// As root the embedded PostgreSQL runs as `postgres`, which must reach the data directory.
chmodSync(parent, 0o755);
const dataDir = join(parent, "data");
let port: number;
let launcher: { child: ChildProcess; output: string[] } | undefined;

async function startLauncher() {
  port ??= await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: "production",
    DATA_DIR: dataDir,
    PORT: String(port),
  };
  const child = spawn(process.execPath, ["--import", "tsx", "worker/launcher.ts", "start"], {
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  child.stdout!.on("data", (chunk) => output.push(String(chunk)));
  child.stderr!.on("data", (chunk) => output.push(String(chunk)));
  launcher = { child, output };
  await waitFor(
    async () =>
      fetch(`http://127.0.0.1:${port}/api/health`).then(
        (response) => response.ok,
        () => false,
      ),
    120_000,
    `the production start to answer:\n${output.join("")}`,
  );
  return output;
}

async function stopLauncher() {
  if (!launcher) return;
  const { child } = launcher;
  launcher = undefined;
  if (child.exitCode !== null) return;
  const exited = new Promise((done) => child.once("exit", done));
  process.kill(child.pid!, "SIGTERM");
  await exited;
}

/** The command lines of a process's direct children. Linux only. */
function childCommandLines(parentPid: number): string[] {
  const lines: string[] = [];
  for (const { pid, fields } of allProcStats()) {
    if (Number(fields[1]) !== parentPid) continue;
    try {
      lines.push(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" "));
    } catch {
      // the process ended while we read it
    }
  }
  return lines;
}

afterAll(async () => {
  await stopLauncher();
  rmSync(parent, { recursive: true, force: true });
});

describe("npm start in production with no configuration", () => {
  it("[PROD][SECRETS]: generates secrets into the data directory, creates no demo admin, and no development value works", async () => {
    const log = (await startLauncher()).join("");
    const file = join(dataDir, "secrets.env");
    expect(log).toContain(
      `production secrets: generated AUTH_SECRET, PAYMENTS_API_TOKENS, HEALTH_TOKENS, METRICS_TOKEN, ACCOUNT_SECRETS_KEY (in ${file}, mode 0600)`,
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const secrets = parseEnv(readFileSync(file, "utf8"));
    expect(secrets.AUTH_SECRET).toMatch(/^[A-Za-z0-9_-]{64}$/);
    for (const value of Object.values(secrets)) expect(log).not.toContain(value);
    expect(log).not.toContain("development secrets");
    expect(log).not.toContain("Demo admin");
    // The web process runs with its heap bounded (WEB_HEAP_LIMIT_MB's default).
    const web = childCommandLines(launcher!.child.pid!).find((line) => line.includes("worker/web-server.ts"));
    expect(web).toContain(`--max-old-space-size=${DEFAULT_WEB_HEAP_LIMIT_MB}`);
    // The hint names the CLI, never the embedded database's URL (it carries a generated password).
    expect(log).toMatch(/no console users yet.*\n\[launcher\]\s+npm run cli -- user:create/);
    expect(log).not.toMatch(/postgres(ql)?:\/\/[^\s]*:[^\s]*@/);

    const base = `http://127.0.0.1:${port}`;
    // Stripe with the example secret: the provider has no secret at all, so nothing is accepted.
    const body = JSON.stringify({
      id: "evt_dev",
      type: "charge.succeeded",
      created: Math.floor(Date.now() / 1000),
      data: { object: { id: "ch_dev" } },
    });
    const webhook = signedWebhook("stripe", "evt_dev", body, "whsec_dev_stripe_change_me");
    const stripe = await postWebhook(base, webhook);
    expect(stripe.status).toBe(503);
    // The host API: the example token is refused, the generated one accepted.
    const payments = (token: string) =>
      fetch(`${base}/api/payments`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: "{}",
      });
    expect((await payments("dev-payments-token")).status).toBe(401);
    expect((await payments(secrets.PAYMENTS_API_TOKENS!)).status).toBe(400);

    // The first admin comes from the CLI, as the launcher said; a session forged with the example
    // AUTH_SECRET is no one, the same token signed with the generated secret is the admin.
    const created = spawnSync(
      process.execPath,
      ["--import", "tsx", "worker/cli.ts", "user:create", "--email", "first@example.com", "--role", "admin"],
      {
        // As the hint says: no DATABASE_URL, the CLI finds the running embedded database itself.
        env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production" },
        encoding: "utf8",
      },
    );
    expect(created.stdout).toMatch(/created admin first@example.com with password: \S{24}/);
    const claims = { sub: "1", email: "first@example.com", role: "admin", sessionVersion: 0, signedInAt: Math.floor(Date.now() / 1000) };
    const asAdmin = async (secret: string) => {
      const token = await encode({ token: claims, secret });
      return fetch(`${base}/api/replays/999999`, { redirect: "manual", headers: { cookie: `next-auth.session-token=${token}` } });
    };
    expect([307, 401]).toContain((await asAdmin("dev-auth-secret-change-me-0123456789abcdef")).status);
    // Signed in (not 401), but held at the account page until the generated password is replaced.
    expect((await asAdmin(secrets.AUTH_SECRET!)).status).toBe(403);
  });

  it("[PROD][SECRETS]: reuses the stored secrets on the next start", async () => {
    const before = readFileSync(join(dataDir, "secrets.env"), "utf8");
    await stopLauncher();
    const log = (await startLauncher()).join("");
    expect(log).toContain("production secrets: reused AUTH_SECRET, PAYMENTS_API_TOKENS, HEALTH_TOKENS, METRICS_TOKEN, ACCOUNT_SECRETS_KEY");
    expect(log).not.toContain("no console users yet");
    expect(readFileSync(join(dataDir, "secrets.env"), "utf8")).toBe(before);
  });
});
