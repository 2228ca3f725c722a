import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app";
import { testConfig, waitFor } from "../testing/test-worker";
import { startAccountDirectory, type AccountDirectory } from "./account-directory";
import type { ProviderName } from "../providers/registry";
import {
  accountPageQuerySchema,
  getGatewayAccountView,
  listGatewayAccountViews,
  putGatewayAccount,
  readGatewayAccountPage,
  removeGatewayAccount,
  resealGatewayAccounts,
  rotateGatewayAccount,
  setGatewayAccountEnabled,
} from "./manage-gateway-accounts";
import { fingerprint } from "./sealed-account";

// The accounts kept in the database: written sealed, shown as fingerprints only, audited, and every
// process's cache (here, directories as separate processes keep them) follows each change within
// seconds, by its notification or, when none can arrive, by its periodic check.

const KEY = "test-account-secrets-key-0123456789abcdef";
const NEW_KEY = "test-account-secrets-key-rotated-0123456789";
const SECRET = "asaas-token-loja-a-0123456789";
const API_KEY = "$aact_loja_a_0123456789";
const actor = { name: "test@example.com", ip: "127.0.0.1" };

let app: TestApp;
const directories: AccountDirectory[] = [];

beforeAll(async () => {
  app = await createTestApp("gateway_accounts", {
    ACCOUNT_SECRETS_KEY: KEY,
    ASAAS_ACCOUNTS: "from-env",
    WEBHOOK_SECRET_ASAAS_FROM_ENV: "env-token-0123456789",
  });
});
afterAll(async () => {
  await Promise.all(directories.map((directory) => directory.close()));
  await app.close();
});

/** A directory as one process keeps it, on a configuration of its own. */
function directory(overrides: Record<string, string> = {}): AccountDirectory {
  const config = testConfig(app.env, overrides);
  const started = startAccountDirectory(config, app.pool, { databaseUrl: app.db.url, applicationName: "test:accounts" });
  directories.push(started);
  return started;
}

const deps = (overrides: Record<string, string> = {}) => ({ pool: app.pool, config: testConfig(app.env, overrides) });
const secretsOf = (dir: AccountDirectory, name: string) => dir.find("asaas", name)?.secrets;

describe("an account kept in the database", () => {
  it("is stored sealed, shown by fingerprints only, audited without its secrets", async () => {
    const { created, account } = await putGatewayAccount(
      deps(),
      "asaas",
      "loja-a",
      { secrets: [SECRET], credentials: { apiKey: API_KEY } },
      actor,
    );
    expect(created).toBe(true);
    expect(account).toMatchObject({
      provider: "asaas",
      name: "loja-a",
      source: "database",
      enabled: true,
      gatewayAccountId: "loja-a",
      webhookPath: "/api/webhooks/asaas/loja-a",
      secrets: [{ fingerprint: fingerprint(SECRET) }],
      credentials: { apiKey: { fingerprint: fingerprint(API_KEY) } },
    });
    const everything = JSON.stringify([
      account,
      await getGatewayAccountView(app.pool, app.config, "asaas", "loja-a"),
      (await app.pool.query("SELECT * FROM gateway_accounts")).rows,
      (await app.pool.query("SELECT * FROM audit_log WHERE action LIKE 'gateway_account%'")).rows,
    ]);
    for (const secret of [SECRET, API_KEY]) expect(everything).not.toContain(secret);
    const { rows } = await app.pool.query("SELECT actor, action, details FROM audit_log WHERE action = 'gateway_account_added'");
    expect(rows).toEqual([
      {
        actor: actor.name,
        action: "gateway_account_added",
        details: expect.objectContaining({ provider: "asaas", account: "loja-a", secrets: [fingerprint(SECRET)], credentials: ["apiKey"] }),
      },
    ]);
  });

  it("refuses the default's name, an environment account's, a credential its API doesn't take, and an unknown gateway", async () => {
    await expect(putGatewayAccount(deps(), "asaas", "default", { secrets: [SECRET] }, actor)).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(putGatewayAccount(deps(), "asaas", "from-env", { secrets: [SECRET] }, actor)).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("ASAAS_ACCOUNTS"),
    });
    await expect(putGatewayAccount(deps(), "asaas", "loja a", { secrets: [SECRET] }, actor)).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(
      putGatewayAccount(deps(), "asaas", "loja-z", { secrets: [SECRET], credentials: { marketplaceId: "m" } }, actor),
    ).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(putGatewayAccount(deps(), "nopay", "loja-z", { secrets: [SECRET] }, actor)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(
      putGatewayAccount(deps({ ACCOUNT_SECRETS_KEY: "" }), "asaas", "loja-z", { secrets: [SECRET] }, actor),
    ).rejects.toMatchObject({
      code: "NOT_CONFIGURED",
    });
    // Production refuses a weak secret, as it does in the environment.
    await expect(
      putGatewayAccount(deps({ NODE_ENV: "production" }), "asaas", "loja-z", { secrets: ["short"] }, actor),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
  });

  it("reaches every process within seconds of its change: added, rotated with overlap, disabled, removed", async () => {
    const [first, second] = [directory(), directory()];
    await Promise.all([first.ready(), second.ready()]);
    expect(first.find("asaas", "from-env")).toMatchObject({ source: "environment", secrets: ["env-token-0123456789"] });
    expect(secretsOf(first, "loja-a")).toEqual([SECRET]);

    await putGatewayAccount(deps(), "asaas", "loja-b", { secrets: ["token-b-1-0123456789"], credentials: { apiKey: "key-b" } }, actor);
    for (const dir of [first, second]) await waitFor(async () => secretsOf(dir, "loja-b")?.length === 1, 5_000, "loja-b everywhere");
    expect(second.find("asaas", "loja-b")).toMatchObject({ credentials: { apiKey: "key-b" }, enabled: true });

    // A rotation: both verify until the old is retired.
    await rotateGatewayAccount(deps(), "asaas", "loja-b", { secret: "token-b-2-0123456789" }, actor);
    for (const dir of [first, second])
      await waitFor(async () => secretsOf(dir, "loja-b")?.join() === "token-b-2-0123456789,token-b-1-0123456789", 5_000, "overlap");
    await rotateGatewayAccount(deps(), "asaas", "loja-b", { retireOld: true }, actor);
    for (const dir of [first, second])
      await waitFor(async () => secretsOf(dir, "loja-b")?.join() === "token-b-2-0123456789", 5_000, "retired");

    await setGatewayAccountEnabled(deps(), "asaas", "loja-b", false, actor);
    for (const dir of [first, second]) await waitFor(async () => dir.find("asaas", "loja-b")?.enabled === false, 5_000, "disabled");

    await removeGatewayAccount(deps(), "asaas", "loja-b", actor);
    for (const dir of [first, second]) await waitFor(async () => dir.find("asaas", "loja-b") === undefined, 5_000, "removed");
    const actions = await app.pool.query<{ action: string }>(
      "SELECT action FROM audit_log WHERE details->>'account' = 'loja-b' ORDER BY id",
    );
    expect(actions.rows.map((row) => row.action)).toEqual([
      "gateway_account_added",
      "gateway_account_rotated",
      "gateway_account_rotated",
      "gateway_account_disabled",
      "gateway_account_removed",
    ]);
  });

  it("is found by the gateway's own id an event names: its option, else its name", async () => {
    await putGatewayAccount(
      deps(),
      "mercadopago",
      "seller-a",
      { credentials: { apiKey: "APP_USR-seller-a" }, gatewayAccountId: "202809963" },
      actor,
    );
    await putGatewayAccount(deps(), "mercadopago", "77001", { credentials: { apiKey: "APP_USR-77001" } }, actor);
    const dir = directory();
    await dir.ready();
    expect(dir.forGatewayId("mercadopago", "202809963")?.name).toBe("seller-a");
    expect(dir.forGatewayId("mercadopago", "77001")?.name).toBe("77001");
    expect(dir.forGatewayId("mercadopago", "seller-a")).toBeUndefined();
    // One account per gateway id.
    await expect(putGatewayAccount(deps(), "mercadopago", "seller-b", { gatewayAccountId: "77001" }, actor)).rejects.toMatchObject({
      code: "CONFLICT",
    });
  });

  it("is caught up by the periodic check where no notification can arrive (transaction pooling)", async () => {
    const polling = directory({ DATABASE_POOLER: "transaction", ACCOUNTS_RELOAD_SECONDS: "1" });
    await polling.ready();
    await putGatewayAccount(deps(), "asaas", "loja-c", { secrets: ["token-c-0123456789"] }, actor);
    await waitFor(async () => secretsOf(polling, "loja-c")?.length === 1, 5_000, "loja-c by polling");
    await removeGatewayAccount(deps(), "asaas", "loja-c", actor);
    await waitFor(async () => polling.find("asaas", "loja-c") === undefined, 5_000, "loja-c gone by polling");
  });

  it("lists a page of the database's accounts with their total", async () => {
    const page = await listGatewayAccountViews(app.pool, { provider: "mercadopago", pageSize: 1 });
    expect(page).toMatchObject({ total: 2, accounts: [{ name: "77001" }] });
    expect(await listGatewayAccountViews(app.pool, { provider: "mercadopago", page: 2, pageSize: 1 })).toMatchObject({
      total: 2,
      accounts: [{ name: "seller-a" }],
    });
    expect(await listGatewayAccountViews(app.pool, { search: "lo" })).toMatchObject({ total: 1, accounts: [{ name: "loja-a" }] });
  });
});

describe("ACCOUNT_SECRETS_KEY", () => {
  it("rotates: a new key in front opens both, re-sealing moves every account to it, then the old key can go", async () => {
    const both = `${NEW_KEY},${KEY}`;
    const during = directory({ ACCOUNT_SECRETS_KEY: both });
    await during.ready();
    expect(secretsOf(during, "loja-a")).toEqual([SECRET]);
    // With only the new key, nothing sealed under the old one opens.
    const early = directory({ ACCOUNT_SECRETS_KEY: NEW_KEY });
    await early.ready();
    expect(early.find("asaas", "loja-a")).toMatchObject({ unreadable: expect.any(String), secrets: [] });

    const result = await resealGatewayAccounts(deps({ ACCOUNT_SECRETS_KEY: both }), actor);
    expect(result).toEqual({ resealed: 3, current: 0, unreadable: [] });
    expect(await resealGatewayAccounts(deps({ ACCOUNT_SECRETS_KEY: both }), actor)).toEqual({ resealed: 0, current: 3, unreadable: [] });
    // The process that had only the new key hears of each re-sealed account and opens it now.
    await waitFor(async () => secretsOf(early, "loja-a")?.[0] === SECRET, 5_000, "re-sealed account opened");
    const after = directory({ ACCOUNT_SECRETS_KEY: NEW_KEY });
    await after.ready();
    expect(after.find("mercadopago", "seller-a")).toMatchObject({ credentials: { apiKey: "APP_USR-seller-a" } });
    expect(after.find("mercadopago", "seller-a")?.unreadable).toBeUndefined();
  });
});

describe("the host API's page of accounts", () => {
  const page = (query: Record<string, string>, providers?: ProviderName[]) => {
    const { provider, after, limit } = accountPageQuerySchema.parse(query);
    return readGatewayAccountPage(app.pool, app.config, { providers: providers ?? provider, after, limit });
  };

  it("walks every account, the environment's among the database's, by provider and name, with the total and no secret", async () => {
    for (const name of ["m-1", "m-2", "m-3"])
      await putGatewayAccount(deps(), "asaas", name, { secrets: [`${name}-token-0123456789`] }, actor);
    const names: string[] = [];
    let cursor: string | null | undefined;
    let pages = 0;
    do {
      const next = await page({ limit: "2", ...(cursor ? { after: cursor } : {}) });
      expect(next.total).toBe(7);
      names.push(...next.data.map((account) => `${account.provider}/${account.name}/${account.source}`));
      cursor = next.cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(4);
    expect(names).toEqual([
      "asaas/from-env/environment",
      "asaas/loja-a/database",
      "asaas/m-1/database",
      "asaas/m-2/database",
      "asaas/m-3/database",
      "mercadopago/77001/database",
      "mercadopago/seller-a/database",
    ]);
    const everything = JSON.stringify(await page({ limit: "500" }));
    for (const secret of [SECRET, API_KEY, "env-token-0123456789", "m-1-token-0123456789", "APP_USR-77001"])
      expect(everything).not.toContain(secret);
    expect((await page({ limit: "500" })).data[1]).toEqual(await getGatewayAccountView(app.pool, app.config, "asaas", "loja-a"));
  });

  it("keeps to the gateways asked for (a scoped token's), and refuses a cursor it did not give out", async () => {
    expect(await page({ provider: "mercadopago" })).toMatchObject({
      total: 2,
      cursor: null,
      data: [{ name: "77001" }, { name: "seller-a" }],
    });
    expect(await page({}, ["stripe"])).toEqual({ total: 0, cursor: null, data: [] });
    const first = await page({ provider: "asaas", limit: "4" });
    expect(first.data.map((account) => account.name)).toEqual(["from-env", "loja-a", "m-1", "m-2"]);
    expect(await page({ provider: "asaas", limit: "4", after: first.cursor! })).toMatchObject({
      total: 5,
      cursor: null,
      data: [{ name: "m-3" }],
    });
    expect(() => accountPageQuerySchema.parse({ after: "nope" })).toThrow(/cursor/);
    expect(() => accountPageQuerySchema.parse({ provider: "" })).toThrow();
    expect(() => accountPageQuerySchema.parse({ limit: "501" })).toThrow();
  });
});
