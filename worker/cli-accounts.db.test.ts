import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fingerprint } from "@/lib/gateway-accounts/sealed-account";
import { runCli } from "@/lib/testing/cli-process";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";

// The operator CLI's gateway-account commands as operators run them: a process, against
// DATABASE_URL, a secret piped in on standard input so it never shows in the process list.

const KEY = "cli-account-secrets-key-0123456789abcdef";
const NEW_KEY = "cli-account-secrets-key-rotated-0123456789";
const TOKEN = "asaas-token-from-stdin-0123456789";
let app: TestApp;
const cli = (args: string[], input = "", env: Record<string, string> = {}) =>
  runCli({ ...app.env, ACCOUNT_SECRETS_KEY: KEY, ...env }, args, input);
const account = { provider: "asaas", name: "loja-a" };
const named = ["--provider", account.provider, "--name", account.name];

beforeAll(async () => {
  app = await createTestApp("cli_accounts", { ASAAS_ACCOUNTS: "from-env", WEBHOOK_SECRET_ASAAS_FROM_ENV: "env-token-0123456789" });
});
afterAll(async () => {
  await app.close();
});

// Each test starts the CLI a few times, one after the other: on a loaded machine a start alone can
// take tens of seconds.
describe("npm run cli, gateway accounts", { timeout: 300_000 }, () => {
  it("adds an account with its secret from standard input, lists it by fingerprint, rotates, disables and removes it", async () => {
    const added = cli(["accounts:add", ...named, "--secret", "-", "--api-key", "$aact_cli_key"], `${TOKEN}\n`);
    expect(added).toMatchObject({
      code: 0,
      out: expect.stringContaining(`added asaas/loja-a  enabled  database  secrets ${fingerprint(TOKEN)}`),
    });
    const listed = cli(["accounts:list", "--provider", "asaas"]);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain("asaas/from-env  enabled  environment");
    expect(listed.out).toContain(`apiKey ${fingerprint("$aact_cli_key")}`);
    expect(listed.out).toContain("1 account in the database");
    for (const output of [added.out, listed.out]) for (const secret of [TOKEN, "$aact_cli_key"]) expect(output).not.toContain(secret);

    const rotated = cli(["accounts:rotate", ...named, "--secret", "-"], "asaas-token-rotated-0123456789");
    expect(rotated.out).toContain(`secrets ${fingerprint("asaas-token-rotated-0123456789")},${fingerprint(TOKEN)}`);
    expect(cli(["accounts:disable", ...named]).out).toContain("asaas/loja-a  disabled");
    expect(cli(["accounts:add", "--provider", "asaas", "--name", "from-env", "--secret", "x"])).toMatchObject({
      code: 1,
      out: expect.stringContaining("defined in the environment"),
    });
    const { rows } = await app.pool.query("SELECT action, actor FROM audit_log WHERE action LIKE 'gateway_account%' ORDER BY id");
    expect(rows).toEqual(
      ["gateway_account_added", "gateway_account_rotated", "gateway_account_disabled"].map((action) => ({
        action,
        actor: expect.stringMatching(/^cli:/),
      })),
    );
  });

  it("re-seals every account under a new key put in front of ACCOUNT_SECRETS_KEY, then removes one", async () => {
    const before = (await app.pool.query<{ sealed: string }>("SELECT sealed FROM gateway_accounts")).rows[0]!.sealed;
    const resealed = cli(["accounts:reseal"], "", { ACCOUNT_SECRETS_KEY: `${NEW_KEY},${KEY}` });
    expect(resealed).toMatchObject({ code: 0, out: expect.stringContaining("re-sealed 1, already under the newest key 0, unreadable 0") });
    expect((await app.pool.query<{ sealed: string }>("SELECT sealed FROM gateway_accounts")).rows[0]!.sealed).not.toBe(before);
    // The old key alone no longer opens it: a change needs the new one.
    expect(cli(["accounts:rotate", ...named, "--retire-old"])).toMatchObject({
      code: 1,
      out: expect.stringContaining("no key in ACCOUNT_SECRETS_KEY opens"),
    });
    expect(cli(["accounts:remove", ...named], "", { ACCOUNT_SECRETS_KEY: NEW_KEY })).toMatchObject({
      code: 0,
      out: "removed asaas/loja-a\n",
    });
    expect((await app.pool.query("SELECT count(*)::int AS n FROM gateway_accounts")).rows[0].n).toBe(0);
  });
});
