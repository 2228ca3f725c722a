import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "@/lib/db/embedded";
import { generateHistories } from "./history";

// `simulate serve --account NAME` serves the account's payments as `run --account` does: only to
// that account's own API credentials, so an app refetching for the account reads them with its key.

const ACCOUNT_KEY = "$aact_loja_b_key";
const DEFAULT_KEY = "$aact_default_key";
let stop: (() => void) | undefined;
afterEach(() => stop?.());

/** Starts `simulate serve` and resolves with the fake gateway's URL once it listens. */
async function serve(args: string[], env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, ["--import", "tsx", "e2e/simulator/cli.ts", "serve", ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  stop = () => child.kill("SIGINT");
  let output = "";
  return new Promise((listening, fail) => {
    const read = (chunk: Buffer) => {
      output += String(chunk);
      const url = / on (http:\/\/127\.0\.0\.1:\d+); Ctrl-C stops it/.exec(output)?.[1];
      if (url) listening(url);
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.once("exit", (code) => fail(new Error(`simulate serve exited with ${code}: ${output}`)));
  });
}

describe("simulate serve --account", () => {
  it("serves the account's payments to the account's own API key, not to the default account's", async () => {
    const seed = 11;
    const port = await freePort();
    const url = await serve(
      ["--provider", "asaas", "--account", "loja-b", "--payments", "2", "--seed", String(seed), "--gateway-port", String(port)],
      {
        ASAAS_API_KEY: DEFAULT_KEY,
        ASAAS_ACCOUNTS: "loja-b",
        WEBHOOK_SECRET_ASAAS_LOJA_B: "loja-b-webhook-token",
        ASAAS_API_KEY_LOJA_B: ACCOUNT_KEY,
      },
    );
    const [history] = generateHistories(seed, 2, ["asaas"]);
    const read = (key: string) => fetch(`${url}/v3/payments/${history!.payment.chargeId}`, { headers: { access_token: key } });
    const asAccount = await read(ACCOUNT_KEY);
    expect(asAccount.status).toBe(200);
    expect(await asAccount.json()).toMatchObject({ id: history!.payment.chargeId });
    expect((await read(DEFAULT_KEY)).status).toBe(404);
  });
});
