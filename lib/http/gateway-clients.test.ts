import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config/env";
import { findDriver, type ProviderName } from "../providers/registry";
import { createGatewayClients } from "./gateway-clients";

// Each gateway's API authenticated its own documented way: Asaas v3 `access_token: <key>`; Pagar.me
// core v5 and Zoop HTTP Basic with the secret key as user name and an empty password (Pagar.me's
// docs: `-u sk_...:`), Zoop under /v1/marketplaces/{marketplace_id}; Stripe and Mercado Pago Bearer.

const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
const server = createServer((request, response) => {
  seen.push({ path: request.url ?? "", headers: request.headers });
  response.writeHead(404, { "content-type": "application/json" }).end("{}");
});
let base: string;

beforeAll(async () => {
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((done) => server.close(() => done())));

const KEYS = {
  STRIPE_API_KEY: "sk_test_stripe",
  PAGARME_API_KEY: "sk_test_pagarme",
  ASAAS_API_KEY: "$aact_test_asaas",
  MERCADOPAGO_API_KEY: "APP_USR-test-mp",
  ZOOP_API_KEY: "zpk_test_zoop",
  ZOOP_MARKETPLACE_ID: "3249465a7753536b62545a6a684b0000",
};

async function refetchSeen(provider: ProviderName) {
  const config = loadConfig({ ...KEYS, [`${provider.toUpperCase()}_API_URL`]: `${base}/api` });
  const driver = findDriver(provider)!;
  const client = createGatewayClients(config)(provider)!;
  const before = seen.length;
  await driver.refetch!("res_1", client.fetchJson, { credentials: config.providers[provider].credentials }).catch(() => undefined);
  expect(seen.length).toBe(before + 1);
  return seen[seen.length - 1]!;
}

const basic = (user: string) => `Basic ${Buffer.from(`${user}:`).toString("base64")}`;

describe("refetch authentication per gateway", () => {
  it("sends Asaas its access_token header and no Authorization", async () => {
    const request = await refetchSeen("asaas");
    expect(request.path).toBe("/api/payments/res_1");
    expect(request.headers.access_token).toBe(KEYS.ASAAS_API_KEY);
    expect(request.headers.authorization).toBeUndefined();
  });

  it("sends Pagar.me HTTP Basic with the secret key as user name and an empty password", async () => {
    const request = await refetchSeen("pagarme");
    expect(request.path).toBe("/api/charges/res_1");
    expect(request.headers.authorization).toBe(basic(KEYS.PAGARME_API_KEY));
  });

  it("sends Zoop HTTP Basic and the marketplace in the path", async () => {
    const request = await refetchSeen("zoop");
    expect(request.path).toBe(`/api/marketplaces/${KEYS.ZOOP_MARKETPLACE_ID}/transactions/res_1`);
    expect(request.headers.authorization).toBe(basic(KEYS.ZOOP_API_KEY));
  });

  it("sends Stripe and Mercado Pago a Bearer token", async () => {
    expect((await refetchSeen("stripe")).headers.authorization).toBe(`Bearer ${KEYS.STRIPE_API_KEY}`);
    expect((await refetchSeen("mercadopago")).headers.authorization).toBe(`Bearer ${KEYS.MERCADOPAGO_API_KEY}`);
  });
});
