import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// `npm start` (the launcher in production mode) refuses to run with a development value, before it
// starts anything. The full production start (generated secrets, no demo admin) is in
// e2e/production-start.e2e.test.ts, which needs a build.

function startProduction(extra: Record<string, string>) {
  const dataDir = join(mkdtempSync(join(tmpdir(), "inbox-launcher-")), "data");
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: "production", DATA_DIR: dataDir, ...extra };
  const result = spawnSync(process.execPath, ["--import", "tsx", "worker/launcher.ts", "start"], {
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: result.status, out: result.stdout + result.stderr, dataDir };
}

describe("npm start with development values", () => {
  it.each([
    ["WEBHOOK_SECRET_STRIPE", "whsec_dev_stripe_change_me"],
    ["PAYMENTS_API_TOKENS", "dev-payments-token"],
    ["AUTH_SECRET", "dev-auth-secret-change-me-0123456789abcdef"],
  ])("refuses to start when %s holds the .env.example value, naming it", (name, value) => {
    const result = startProduction({ [name]: value });
    expect(result.code).toBe(1);
    expect(result.out).toMatch(new RegExp(`failed to start: Invalid configuration:\\n\\s+${name}: holds a development value`));
    expect(result.out).not.toContain(value);
    // Nothing was started or written.
    expect(existsSync(result.dataDir)).toBe(false);
  });

  it("with its own database, refuses to start without AUTH_SECRET", () => {
    const result = startProduction({ DATABASE_URL: "postgresql://postgres@127.0.0.1:1/none" });
    expect(result.code).toBe(1);
    expect(result.out).toContain("AUTH_SECRET: required in production");
  });
});
