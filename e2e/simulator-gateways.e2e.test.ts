import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { DEVELOPMENT_SECRET_VALUES } from "@/lib/config/development-values";
import { freePort } from "@/lib/db/embedded";
import { statusContradiction } from "@/lib/payments/payment-consistency";
import type { PaymentStatus } from "@/lib/payments/state-machine";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";
import { startAppServer, type AppServer } from "./harness/app-server";
import { runScript } from "@/lib/testing/cli-process";

// docs/simulator.md's block for each gateway, run as a reader runs it: the app started as
// `npm run dev` starts it, with .env.example's values and the variables the block exports over
// them, then the block's own `npm run simulate -- run ...` command. The simulator's check must say every payment is right, and
// no payment, read through the host API, may show a status its own amounts contradict. What differs
// from the block, and why: fewer payments (SIMULATOR_E2E_PAYMENTS, default 30; 300 is the
// documented run), free ports instead of 4010 and 3000 (other runs share the machine), the
// production build instead of `npm run dev`, so test secrets in place of the public development
// ones the production build refuses to start with. README's step 3 must hold the same blocks.

const PAYMENTS = Number(process.env.SIMULATOR_E2E_PAYMENTS ?? 30);
const FAKE_GATEWAY = "http://127.0.0.1:4010";

type Block = { provider: string; text: string; exports: string; simulate: string[] };

/** The blocks whose simulator command starts `run --provider P` (one per gateway), or with `kind` "account", `run --account A`. */
function simulatorBlocks(file: string, kind: "gateway" | "account" = "gateway"): Block[] {
  const markdown = readFileSync(file, "utf8");
  const command =
    kind === "gateway" ? /npm run simulate -- run --provider \w+/ : /npm run simulate -- run --account [\w.-]+ --provider \w+/;
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((match) => match[1]!)
    .filter((text) => command.test(text))
    .map((text) => {
      const lines = text.split("\n");
      const start = lines.findIndex((line) => line.startsWith("npm run dev"));
      const command = lines.find((line) => line.startsWith("npm run simulate -- "))!;
      return {
        provider: /--provider (\w+)/.exec(command)![1]!,
        text,
        exports: lines.slice(0, start).join("\n"),
        simulate: command.slice("npm run simulate -- ".length).trim().split(/\s+/),
      };
    });
}

/** The variables a block's `export` lines set, as bash itself reads them (quotes, continuations). */
function exportedVariables(exports: string): Record<string, string> {
  const environment = (script: string) =>
    Object.fromEntries(
      spawnSync("bash", ["-c", `${script}\nenv -0`], { env: { PATH: process.env.PATH!, NODE_ENV: process.env.NODE_ENV }, encoding: "utf8" })
        .stdout.split("\0")
        .filter((entry) => entry.includes("="))
        .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)]),
    );
  const before = environment("");
  return Object.fromEntries(Object.entries(environment(exports)).filter(([name, value]) => before[name] !== value));
}

/** The production build refuses the public development secrets: each gets a private one (same shape). */
function privateValue(value: string): string {
  if (value.startsWith("whsec_")) return `whsec_${randomBytes(24).toString("base64")}`;
  const user = value.includes(":") ? `${value.slice(0, value.indexOf(":"))}:` : "";
  return `${user}e2e-${randomBytes(16).toString("hex")}`;
}

// Where the test puts the app itself (its own database and a free port), not the example's.
const PLACEMENT = new Set(["DATABASE_URL", "PORT", "INGEST_PORT", "NEXTAUTH_URL"]);

/** What `npm run dev` fills unset variables with. */
function exampleValues(): Record<string, string> {
  const values = parseEnv(readFileSync(".env.example", "utf8")) as Record<string, string>;
  return Object.fromEntries(Object.entries(values).filter(([name]) => !PLACEMENT.has(name)));
}

function asRun(variables: Record<string, string>, gatewayUrl: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(variables).map(([name, value]) => [
      name,
      DEVELOPMENT_SECRET_VALUES.has(value) ? privateValue(value) : value.replaceAll(FAKE_GATEWAY, gatewayUrl),
    ]),
  );
}

function simulate(args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  return runScript("e2e/simulator/cli.ts", args, env);
}

const blocks = simulatorBlocks("docs/simulator.md");
let app: TestApp | undefined;
let server: AppServer | undefined;
afterEach(async () => {
  await server?.stop();
  await app?.close();
  server = app = undefined;
});

describe("[SIMULATOR]: every gateway's block in docs/simulator.md ends with every payment right", () => {
  it("has one block per gateway the simulator drives, and README's step 3 holds the same blocks", () => {
    expect(blocks.map((block) => block.provider).sort()).toEqual(["asaas", "mercadopago", "pagarme", "standard", "stripe", "zoop"]);
    expect(simulatorBlocks("README.md").map((block) => block.text)).toEqual(blocks.map((block) => block.text));
  });

  it.each(blocks.map((block) => [block.provider, block] as const))(
    "%s: the simulator's check says all right, and no payment's status contradicts its amounts",
    async (provider, block) => {
      await runBlock(provider, block);
    },
    900_000,
  );
});

describe("[SIMULATOR]: one account of many (--account) in docs/simulator.md", () => {
  const [accountBlock] = simulatorBlocks("docs/simulator.md", "account");
  it("posts to the account's URL with its secret: every payment right, filed under the account, refetched with its key", async () => {
    expect(accountBlock).toBeDefined();
    const account = /--account ([\w.-]+)/.exec(accountBlock!.text)![1]!;
    const { variables } = await runBlock("asaas", accountBlock!);
    const { rows } = await app!.pool.query<{ account: string; n: number }>(
      "SELECT gateway_account AS account, count(*)::int AS n FROM payments WHERE provider = 'asaas' GROUP BY 1",
    );
    expect(rows).toEqual([{ account, n: PAYMENTS }]);
    const events = await app!.pool.query<{ account: string }>("SELECT DISTINCT gateway_account AS account FROM webhook_inbox");
    expect(events.rows).toEqual([{ account }]);
    expect(variables[`ASAAS_API_KEY_${account.toUpperCase().replace(/[.-]/g, "_")}`]).toBeDefined();
  }, 900_000);
});

/** Runs a block as a reader would (its variables over .env.example's, its simulator command) and checks the payments. */
async function runBlock(provider: string, block: Block): Promise<{ variables: Record<string, string> }> {
  const gatewayPort = await freePort();
  const variables = asRun({ ...exampleValues(), ...exportedVariables(block.exports) }, `http://127.0.0.1:${gatewayPort}`);
  app = await createTestApp(`simulator_${provider}`);
  const env = { DATABASE_URL: app.db.url, ...variables };
  server = await startAppServer(env);
  const args = block.simulate.map((arg, index) => (block.simulate[index - 1] === "--payments" ? String(PAYMENTS) : arg));
  // DATABASE_URL set: the simulator reads no .env.example itself, only the same variables as the app.
  const run = await simulate([...args, "--url", server.url, "--gateway-port", String(gatewayPort), "--drain-timeout", "600"], env);
  // The simulator's own summary, kept in the test's output (the measured N/N of each gateway).
  console.log(
    `${provider}: ${run.output
      .split("\n")
      .filter((line) => /^(sent|check|registered|fake gateway|  \d+ )/.test(line))
      .join(" | ")}`,
  );
  expect(run.output).toContain(`check: ${PAYMENTS}/${PAYMENTS} payments in their true final state`);
  expect(run.code, run.output).toBe(0);

  const { rows } = await app.pool.query<{ chargeId: string }>(`SELECT gateway_charge_id AS "chargeId" FROM payments WHERE provider = $1`, [
    provider,
  ]);
  expect(rows).toHaveLength(PAYMENTS);
  const contradictions: string[] = [];
  for (const { chargeId } of rows) {
    const response = await fetch(`${server.url}/api/payments/${provider}/${encodeURIComponent(chargeId)}`, {
      headers: { authorization: `Bearer ${variables.PAYMENTS_API_TOKENS}` },
    });
    const payment = (await response.json()) as { status: PaymentStatus; amount: number | null; amountRefunded: number };
    const contradiction = statusContradiction(payment);
    if (contradiction) contradictions.push(`${chargeId}: ${contradiction}`);
  }
  expect(contradictions).toEqual([]);
  return { variables };
}

describe("[SIMULATOR]: what it says when a run can't go right", () => {
  it("names each refusal's reason and what to check, and the app's log names the variables a gateway needs", async () => {
    app = await createTestApp("simulator_refusals");
    const gatewayPort = await freePort();
    const tokens = {
      PAYMENTS_API_TOKENS: `e2e-${randomBytes(16).toString("hex")}`,
      HEALTH_TOKENS: `e2e-${randomBytes(16).toString("hex")}`,
    };
    const appSecret = `whsec_${randomBytes(24).toString("base64")}`;
    // The app accepts Stripe with another secret than the simulator's and doesn't accept Pagar.me at all.
    server = await startAppServer({
      DATABASE_URL: app.db.url,
      AUTH_SECRET: `e2e-${randomBytes(24).toString("hex")}`,
      WEBHOOK_SECRET_STRIPE: appSecret,
      ...tokens,
    });
    const run = await simulate(
      ["run", "--providers", "stripe,pagarme", "--payments", "4", "--url", server.url, "--gateway-port", String(gatewayPort)],
      {
        DATABASE_URL: app.db.url,
        WEBHOOK_SECRET_STRIPE: `whsec_${randomBytes(24).toString("base64")}`,
        PAYMENT_SOURCE_PAGARME: "gateway",
        ...tokens,
      },
    );
    expect(run.code, run.output).toBe(1);
    expect(run.output).toMatch(
      /\d+ refused \(given up after every try\): stripe 401 invalid signature: .* — is the app's WEBHOOK_SECRET_STRIPE set to the simulator's \(\d+ characters;/,
    );
    expect(run.output).toMatch(/\d+ refused \(given up after every try\): pagarme 503 .*set PAGARME_SIGNATURES=rs256 and PAGARME_JWKS_URL/);
    expect(server.logs.join("")).toMatch(
      /refusing pagarme webhooks: it is not enabled \(set PAGARME_SIGNATURES=rs256 and PAGARME_JWKS_URL/,
    );
  });

  it("says in one sentence that the fake gateway's port is busy, naming the option that moves it", async () => {
    // Something answers on the port (as an app would, so the simulator gets as far as its fake gateway).
    const busy = createServer((_request, response) => response.end("{}"));
    await new Promise<void>((ready) => busy.listen(0, "127.0.0.1", ready));
    const port = (busy.address() as AddressInfo).port;
    try {
      const run = await simulate(
        ["run", "--payments", "1", "--gateway-port", String(port), "--app-wait", "0", "--url", `http://127.0.0.1:${port}`],
        {},
      );
      expect(run.code).toBe(1);
      expect(run.output).not.toMatch(/EADDRINUSE|    at /);
      expect(run.output.trim().split("\n")).toEqual([expect.stringMatching(new RegExp(`^port ${port} is busy .*--gateway-port N`))]);
    } finally {
      busy.close();
    }
  });
});
