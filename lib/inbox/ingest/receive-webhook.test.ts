import { describe, expect, it } from "vitest";
import { loadConfig } from "../../config/env";
import { configureLogger } from "../../observability/logger";
import { BodyTooLargeError } from "../../request/read-body";
import { receiveWebhook, type WebhookRequest } from "./receive-webhook";

// The steps that answer before anything is stored, without a server or a database: what both
// servers answer is what this returns (the stored path is tested through each server).

const config = loadConfig({ WEBHOOK_BODY_LIMIT_BYTES: "64", ASAAS_ACCOUNTS: "loja-a", WEBHOOK_SECRET_ASAAS_LOJA_A: "loja-a-token" });

function request(overrides: Partial<WebhookRequest> = {}) {
  const reads: number[] = [];
  const value: WebhookRequest = {
    method: "POST",
    provider: "stripe",
    headers: {},
    query: new URLSearchParams(),
    readBody: async (limitBytes) => {
      reads.push(limitBytes);
      throw new BodyTooLargeError(limitBytes);
    },
    ...overrides,
  };
  return { value, reads };
}

const deps = {
  config,
  ingestDeps: () => {
    throw new Error("nothing may be stored");
  },
};

describe("receiveWebhook", () => {
  it("answers 405 to another method, and 404 to an unknown provider, without reading the body", async () => {
    const get = request({ method: "GET" });
    expect(await receiveWebhook(deps, get.value)).toEqual({
      status: 405,
      headers: { allow: "POST" },
      body: { error: "only POST", code: "METHOD_NOT_ALLOWED" },
    });
    const unknown = request({ provider: "nope" });
    expect(await receiveWebhook(deps, unknown.value)).toEqual({
      status: 404,
      headers: {},
      body: { error: 'unknown provider "nope"', code: "NOT_FOUND" },
    });
    expect([...get.reads, ...unknown.reads]).toEqual([]);
  });

  it("answers 404 to an account the gateway doesn't have, without reading the body; reads a known account's", async () => {
    const unknown = request({ provider: "asaas", account: "loja-z" });
    expect(await receiveWebhook(deps, unknown.value)).toEqual({
      status: 404,
      headers: {},
      body: { error: 'unknown account "loja-z" of provider "asaas"', code: "UNKNOWN_ACCOUNT" },
    });
    expect(unknown.reads).toEqual([]);
    const known = request({ provider: "asaas", account: "loja-a" });
    expect((await receiveWebhook(deps, known.value)).status).toBe(413);
    expect(known.reads).toEqual([64]);
  });

  it("reads the body with the configured limit and answers 413 past it", async () => {
    const big = request();
    expect(await receiveWebhook(deps, big.value)).toEqual({
      status: 413,
      headers: {},
      body: { error: "request body exceeds 64 bytes", code: "PAYLOAD_TOO_LARGE" },
    });
    expect(big.reads).toEqual([64]);
  });

  it("leaves any other failure to read to the server's own error answer", async () => {
    const aborted = request({ readBody: () => Promise.reject(new Error("aborted")) });
    await expect(receiveWebhook(deps, aborted.value)).rejects.toThrow("aborted");
  });

  it("logs, for a gateway that is not enabled, the variables that gateway needs", async () => {
    const lines: string[] = [];
    configureLogger({ level: "info", destination: { write: (line: string) => void lines.push(line) } });
    const notEnabled = loadConfig({});
    const refused = async (provider: string) => {
      lines.length = 0;
      const reply = await receiveWebhook(
        { config: notEnabled, ingestDeps: () => ({ config: notEnabled, pool: null as never, boss: null as never }) },
        request({ provider, readBody: async () => Buffer.from("{}") }).value,
      );
      expect(reply.status).toBe(503);
      return lines.map((line) => JSON.parse(line) as { level: string; msg: string }).find((line) => line.level === "error")!.msg;
    };
    // Pagar.me's RS256 signatures need no shared secret: its own variables turn it on.
    expect(await refused("pagarme")).toMatch(/set PAGARME_SIGNATURES=rs256 and PAGARME_JWKS_URL/);
    expect(await refused("asaas")).toMatch(/set WEBHOOK_SECRET_ASAAS/);
  });
});
