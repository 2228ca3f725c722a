import { createHash, createHmac } from "node:crypto";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { standardEvent, stripeEvent, type PaymentFacts } from "@/lib/testing/gateway-events";
import { seededRandom } from "@/e2e/simulator/history";
import { PROVIDER_NAMES, type ProviderName } from "@/lib/providers/registry";
import { signStandard } from "@/lib/providers/standard";
import { signStripe } from "@/lib/providers/stripe";
import { clearInbox, createTestApp, TEST_SECRETS, type TestApp } from "@/lib/testing/test-app";
import { useWebRuntime } from "@/e2e/harness/web-runtime";

// Ingest's promise, checked through the real route handler on a database of this file's own: a
// validly signed body is stored exactly once and answered 200 whatever it holds; a badly signed one
// is answered 401 and stored nowhere; nothing answers 500. First the named hostile bodies, then a
// seeded fuzz run of random and hostile bodies and headers to every provider (2,000 requests,
// 5-15 s alone here, up to ~40 s inside a busy full suite). A failure prints the seed; FUZZ_SEED=<n>
// replays that run.

const SECRETS: Record<ProviderName, string> = {
  stripe: TEST_SECRETS.stripe,
  standard: TEST_SECRETS.standard,
  asaas: "fuzz_asaas_access_token_0123456789",
  pagarme: "ak_test_fuzz_pagarme_0123456789",
  mercadopago: "fuzz_mercadopago_secret_0123456789",
  zoop: "fuzz_zoop_user:fuzz_zoop_password",
};

/** Another secret of the same form (a suffix would not do: base64 decoding ignores a stray character). */
const WRONG_SECRET = (provider: ProviderName) =>
  provider === "standard" ? "whsec_d3JvbmcgZnV6eiBzZWNyZXQgMDEyMzQ1Njc4OQ==" : `${SECRETS[provider]}-wrong`;

type SignedWebhook = { provider: ProviderName; body: Buffer; headers: Record<string, string>; query: string };

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Signs `body` the way each gateway does (written out here from each scheme's documented rule). */
function signed(provider: ProviderName, body: Buffer, id: string, secret = SECRETS[provider]): SignedWebhook {
  const headers: Record<string, string> = { "content-type": "application/json" };
  let query = "";
  switch (provider) {
    case "stripe":
      headers["stripe-signature"] = signStripe(secret, nowSeconds(), body);
      break;
    case "standard":
      Object.assign(headers, {
        "webhook-id": id,
        "webhook-timestamp": String(nowSeconds()),
        "webhook-signature": signStandard(secret, id, nowSeconds(), body),
      });
      break;
    case "asaas":
      headers["asaas-access-token"] = secret;
      break;
    case "pagarme":
      headers["x-hub-signature"] = `sha1=${createHmac("sha1", secret).update(body).digest("hex")}`;
      break;
    case "mercadopago": {
      const ts = String(nowSeconds());
      query = `data.id=${encodeURIComponent(id)}&type=payment`;
      headers["x-request-id"] = `req-${id}`;
      const manifest = `id:${/^[a-z0-9]+$/i.test(id) ? id.toLowerCase() : id};request-id:req-${id};ts:${ts};`;
      headers["x-signature"] = `ts=${ts},v1=${createHmac("sha256", secret).update(manifest).digest("hex")}`;
      break;
    }
    case "zoop":
      headers.authorization = `Basic ${Buffer.from(secret).toString("base64")}`;
      break;
  }
  return { provider, body, headers, query };
}

/** A well-formed event of each gateway, unique per `id`. */
function validEvent(provider: ProviderName, id: string): Record<string, unknown> {
  const payment: PaymentFacts = {
    chargeId: `ch_${id}`,
    amount: 1234,
    currency: "brl",
    customerId: `cus_${id}`,
    customerEmail: `Ana.${id}@Example.com`,
  };
  const step = { kind: "succeeded" as const, amountRefunded: 0, occurredAtMs: Date.now() - 5_000 };
  switch (provider) {
    case "stripe":
      return stripeEvent(payment, step, `evt_${id}`);
    case "standard":
      return standardEvent(payment, step);
    case "asaas":
      return {
        id: `evt_${id}`,
        event: "PAYMENT_RECEIVED",
        dateCreated: "2024-06-12 16:45:03",
        payment: { object: "payment", id: `pay_${id}`, customer: `cus_${id}`, value: 100, status: "RECEIVED", billingType: "PIX" },
      };
    case "pagarme":
      return {
        id: `hook_${id}`,
        type: "charge.paid",
        created_at: "2024-06-12T19:45:00Z",
        data: {
          id: `ch_${id}`,
          amount: 1234,
          currency: "BRL",
          status: "paid",
          customer: { id: `cus_${id}`, email: `ana.${id}@example.com` },
        },
      };
    case "mercadopago":
      return {
        id: Number.parseInt(id.replace(/\D/g, "").slice(0, 12) || "1", 10),
        type: "payment",
        action: "payment.updated",
        date_created: "2026-05-25T13:01:08.000-03:00",
        data: { id },
      };
    case "zoop":
      return {
        id: `evt_${id}`,
        type: "transaction.succeeded",
        created_at: "2024-06-12T19:45:04+00:00",
        payload: {
          object: { id: `tr_${id}`, resource: "transaction", status: "succeeded", amount: "10.50", currency: "BRL", customer: `cus_${id}` },
        },
      };
  }
}

const deepArrays = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

/** Hostile bodies, by name: each one crashed ingest with a 500 before. */
const NAMED: Record<string, (id: string) => { provider: ProviderName; body: string }> = {
  "created: 9000000000000000 (RangeError: Invalid time value)": (id) => ({
    provider: "stripe",
    body: JSON.stringify({ ...validEvent("stripe", id), created: 9000000000000000 }),
  }),
  "a lone high surrogate \\ud800 in a text field": (id) => ({
    provider: "stripe",
    body: JSON.stringify(validEvent("stripe", id)).replace('"livemode":false', '"livemode":false,"description":"caf\\ud800"'),
  }),
  "a lone low surrogate \\udc00 as an object key": (id) => ({
    provider: "pagarme",
    body: JSON.stringify(validEvent("pagarme", id)).replace('"type"', '"\\udc00":1,"type"'),
  }),
  "a lone surrogate in the event id": (id) => ({
    provider: "asaas",
    body: JSON.stringify(validEvent("asaas", id)).replace(`"evt_${id}"`, `"evt_${id}\\ud800"`),
  }),
  "a NUL (\\u0000) in a free-text field": (id) => ({
    provider: "stripe",
    body: JSON.stringify(validEvent("stripe", id)).replace('"livemode":false', '"livemode":false,"description":"a\\u0000b"'),
  }),
  "a NUL (\\u0000) in the customer e-mail": (id) => ({
    provider: "pagarme",
    body: JSON.stringify(validEvent("pagarme", id)).replace(`"ana.${id}@`, `"ana.${id}\\u0000@`),
  }),
  "a raw NUL byte before the JSON": () => ({ provider: "zoop", body: "\u0000{}" }),
  "100k levels of nested arrays as the body": () => ({ provider: "standard", body: deepArrays(100_000) }),
  "100k levels of nested arrays inside a valid event": (id) => ({
    provider: "stripe",
    body: JSON.stringify(validEvent("stripe", id)).replace('"livemode":false', `"livemode":false,"metadata":${deepArrays(100_000)}`),
  }),
};

let app: TestApp;
let POST: (request: NextRequest, context: { params: Promise<{ provider: string }> }) => Promise<Response>;
let stopWebRuntime: () => Promise<void>;

beforeAll(async () => {
  app = await createTestApp("fuzz", {});
  stopWebRuntime = useWebRuntime(app, {
    WEBHOOK_SECRET_ASAAS: SECRETS.asaas,
    WEBHOOK_SECRET_PAGARME: SECRETS.pagarme,
    // The legacy HMAC scheme, opt-in since RS256 is the default: the fuzz signs with the secret alone.
    PAGARME_SIGNATURES: "hub-signature",
    WEBHOOK_SECRET_MERCADOPAGO: SECRETS.mercadopago,
    WEBHOOK_SECRET_ZOOP: SECRETS.zoop,
    SIGNATURE_FAILURES_MAX: "50",
  });
  ({ POST } = await import("./route"));
});

afterAll(async () => {
  await stopWebRuntime();
  await app.close();
});

beforeEach(() => clearInbox(app));

async function send(webhook: SignedWebhook): Promise<Response> {
  const request = new NextRequest(`http://localhost/api/webhooks/${webhook.provider}${webhook.query ? `?${webhook.query}` : ""}`, {
    method: "POST",
    body: new Uint8Array(webhook.body),
    headers: webhook.headers,
  });
  return POST(request, { params: Promise.resolve({ provider: webhook.provider }) });
}

const bodyKey = ({ provider, body }: SignedWebhook) => `${provider}:${createHash("sha256").update(body).digest("hex")}`;

/** How many times each raw body is stored, by provider and the body's sha256. */
async function storedBodies(): Promise<Map<string, number>> {
  const { rows } = await app.pool.query<{ key: string; n: number }>(
    "SELECT provider || ':' || encode(sha256(raw_body), 'hex') AS key, count(*)::int AS n FROM webhook_inbox GROUP BY 1",
  );
  return new Map(rows.map((row) => [row.key, row.n]));
}

describe("hostile signed bodies", () => {
  for (const [name, make] of Object.entries(NAMED)) {
    it(`stores ${name} once, answers 200, and refuses it unsigned`, async () => {
      const id = `named${Math.floor(Math.random() * 1e9)}`;
      const { provider, body } = make(id);
      const raw = Buffer.from(body);
      const good = signed(provider, raw, id);
      const first = await send(good);
      expect(first.status).toBe(200);
      expect(await first.json()).toEqual({ received: true, duplicate: false });
      expect(await (await send(good)).json()).toEqual({ received: true, duplicate: true });
      expect((await send(signed(provider, raw, id, WRONG_SECRET(provider)))).status).toBe(401);

      const { rows } = await app.pool.query("SELECT raw_body, status, last_error, payload, customer_email FROM webhook_inbox");
      expect(rows).toHaveLength(1);
      expect(Buffer.compare(rows[0].raw_body, raw)).toBe(0);
      // Either read (a NUL or surrogate in free text only costs the jsonb copy) or failed with a reason.
      if (rows[0].status === "failed") expect(rows[0].last_error).toMatch(/\w{4,}/);
      else expect(rows[0].status).toBe("pending");
      if (rows[0].payload !== null) expect(JSON.stringify(rows[0].payload)).not.toMatch(/\\u0000|\\ud[89a-f]/i);
    });
  }

  it("names the reason of each failure", async () => {
    const reasons: Record<string, RegExp> = {
      "created: 9000000000000000 (RangeError: Invalid time value)": /event time out of range/,
      "a lone surrogate in the event id": /event id contains a NUL character or a lone UTF-16 surrogate/,
      "a NUL (\\u0000) in the customer e-mail": /customer e-mail contains a NUL/,
      "a raw NUL byte before the JSON": /body is not valid JSON/,
      "100k levels of nested arrays as the body": /nests deeper than 64 levels/,
      "100k levels of nested arrays inside a valid event": /nests deeper than 64 levels/,
    };
    for (const [name, reason] of Object.entries(reasons)) {
      const id = `reason${Math.floor(Math.random() * 1e9)}`;
      const { provider, body } = NAMED[name]!(id);
      expect((await send(signed(provider, Buffer.from(body), id))).status).toBe(200);
      const { rows } = await app.pool.query("SELECT status, last_error FROM webhook_inbox WHERE raw_body = $1", [Buffer.from(body)]);
      expect(rows, name).toEqual([{ status: "failed", last_error: expect.stringMatching(reason) }]);
    }
    // Free text that jsonb can't hold costs only the jsonb copy: the event is read and processed.
    for (const name of ["a NUL (\\u0000) in a free-text field", "a lone high surrogate \\ud800 in a text field"]) {
      const id = `text${Math.floor(Math.random() * 1e9)}`;
      const { provider, body } = NAMED[name]!(id);
      expect((await send(signed(provider, Buffer.from(body), id))).status).toBe(200);
      const { rows } = await app.pool.query("SELECT status, payload, resource_id FROM webhook_inbox WHERE raw_body = $1", [
        Buffer.from(body),
      ]);
      expect(rows, name).toEqual([{ status: "pending", payload: null, resource_id: `ch_${id}` }]);
    }
  });
});

// --- the seeded fuzz run -------------------------------------------------------------------------

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const HOSTILE_STRINGS = [
  "\u0000",
  "\ud800",
  "\udc00",
  "\ud83d\ude00",
  "\u202e",
  "'; DROP TABLE webhook_inbox; --",
  "<script>alert(1)</script>",
  "%00",
  "\\",
  '"',
  "é",
  "🙂".repeat(50),
  "x".repeat(5000),
];
const HOSTILE_VALUES: unknown[] = [
  9000000000000000,
  -1,
  0,
  1e308,
  -1e308,
  1.5,
  null,
  true,
  [],
  {},
  "",
  "1970-01-01",
  "9999-99-99T99:99:99Z",
  "not a date",
];

function randomText(random: Random): string {
  if (random() < 0.5) return pick(random, HOSTILE_STRINGS);
  const length = Math.floor(random() * 20);
  return Array.from({ length }, () => String.fromCharCode(Math.floor(random() * 0x10000))).join("");
}

/**
 * Replaces one leaf (or adds a key) somewhere in the object with something hostile. The event id
 * stays unique (hostile text around it): two bodies claiming one id are one event, rightly deduped.
 */
function mutate(random: Random, value: Record<string, unknown>, id: string): void {
  let target: Record<string, unknown> = value;
  for (let depth = 0; depth < 4; depth++) {
    const children = Object.entries(target).filter(([, child]) => child !== null && typeof child === "object" && !Array.isArray(child));
    if (children.length === 0 || random() < 0.4) break;
    target = pick(random, children)[1] as Record<string, unknown>;
  }
  const keys = Object.keys(target);
  const key = keys.length === 0 || random() < 0.2 ? randomText(random) : pick(random, keys);
  const roll = random();
  if (target === value && key === "id") target[key] = `${randomText(random)}${id}`;
  else if (roll < 0.4) target[key] = randomText(random);
  else if (roll < 0.8) target[key] = pick(random, HOSTILE_VALUES);
  else if (roll < 0.9) target[key] = JSON.parse(deepArrays(50));
  else delete target[key];
}

/** A body: valid, mutated, or not JSON at all. The unique `id` keeps distinct bodies distinct. */
function randomBody(random: Random, provider: ProviderName, id: string): string {
  const roll = random();
  if (roll < 0.3) return JSON.stringify(validEvent(provider, id));
  if (roll < 0.75) {
    const event = validEvent(provider, id);
    const mutations = 1 + Math.floor(random() * 3);
    for (let i = 0; i < mutations; i++) mutate(random, event, id);
    return JSON.stringify(event);
  }
  const text = JSON.stringify(validEvent(provider, id));
  const shapes = [
    () => text.slice(0, Math.floor(random() * text.length)),
    () => `${text}${randomText(random)}`,
    () => `${id}${randomText(random)}`,
    () => `[${JSON.stringify(id)},${deepArrays(100 + Math.floor(random() * 20_000))}]`,
    () => `{"id":${JSON.stringify(id)},"x":${"9".repeat(400)}}`,
    () => Buffer.from([...Buffer.from(text)].map((byte) => (random() < 0.02 ? Math.floor(random() * 256) : byte))).toString("latin1"),
    () => `"${id}"`,
  ];
  return pick(random, shapes)();
}

/** Header values as an attacker might send them: garbage, long, almost right. */
function badHeaders(random: Random, webhook: SignedWebhook): SignedWebhook {
  const headers = { ...webhook.headers };
  const names = Object.keys(headers).filter((name) => name !== "content-type");
  const garbage = () =>
    Array.from({ length: Math.floor(random() * 300) }, () => String.fromCharCode(0x20 + Math.floor(random() * 0xdf))).join("");
  const roll = random();
  if (roll < 0.3 && names.length > 0) delete headers[pick(random, names)];
  else if (roll < 0.6 && names.length > 0) headers[pick(random, names)] = garbage();
  else if (roll < 0.8) return { ...signed(webhook.provider, webhook.body, "wrong", WRONG_SECRET(webhook.provider)), query: webhook.query };
  else headers[pick(random, names.length ? names : ["x-anything"])] = "t=1,v1=00,ts=1,sha1=00";
  return { ...webhook, headers, query: random() < 0.5 ? webhook.query : "data.id=other&token=nope" };
}

/** Mercado Pago signs only the query's data.id: a body whose own data.id is another one is not validly signed. */
function namesOnlySignedResource(webhook: SignedWebhook, signedId: string): boolean {
  if (webhook.provider !== "mercadopago") return true;
  let bodyId: unknown;
  try {
    bodyId = (JSON.parse(webhook.body.toString("utf8")) as { data?: { id?: unknown } } | null)?.data?.id;
  } catch {
    return true;
  }
  return bodyId === undefined || bodyId === null || String(bodyId).toLowerCase() === signedId.toLowerCase();
}

const FUZZ_REQUESTS = 2000;

describe("fuzz", () => {
  it(`sends ${FUZZ_REQUESTS} seeded random and hostile webhooks to every provider: no 5xx, bad signatures store nothing, signed bodies stored once`, async () => {
    const seed = Number(process.env.FUZZ_SEED ?? 20261201);
    const random = seededRandom(seed);
    const signedBodies = new Set<string>();
    const failures: string[] = [];
    const webhooks: { webhook: SignedWebhook; signed: boolean }[] = [];
    for (let index = 0; webhooks.length < FUZZ_REQUESTS; index++) {
      const provider = pick(random, PROVIDER_NAMES);
      const id = `fz${seed}x${index}`;
      const good = signed(provider, Buffer.from(randomBody(random, provider, id)), id);
      if (!namesOnlySignedResource(good, id)) {
        // A Mercado Pago body naming another resource than the signed query id is refused.
        webhooks.push({ webhook: good, signed: false });
      } else if (random() < 0.55) {
        webhooks.push({ webhook: good, signed: true });
        // Gateways resend: the same request again must stay one row.
        if (random() < 0.15) webhooks.push({ webhook: good, signed: true });
      } else {
        webhooks.push({ webhook: badHeaders(random, good), signed: false });
      }
    }
    for (const { webhook, signed: isSigned } of webhooks) if (isSigned) signedBodies.add(bodyKey(webhook));

    const started = Date.now();
    const queue = [...webhooks.entries()];
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const [index, { webhook, signed: isSigned }] = next;
          const response = await send(webhook);
          const expected = isSigned ? 200 : 401;
          if (response.status !== expected) {
            failures.push(
              `#${index} ${webhook.provider} ${isSigned ? "signed" : "unsigned"}: ${response.status} ${(await response.text()).slice(0, 200)}`,
            );
          }
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    expect(failures, `seed ${seed}`).toEqual([]);

    const stored = await storedBodies();
    const missing = [...signedBodies].filter((key) => stored.get(key) !== 1);
    const strays = [...stored.keys()].filter((key) => !signedBodies.has(key));
    expect(missing, `seed ${seed}: signed bodies not stored exactly once`).toEqual([]);
    expect(strays, `seed ${seed}: rows stored from bad signatures`).toEqual([]);
    const { rows } = await app.pool.query<{ pending: number; jobs: number }>(
      `SELECT (SELECT count(*)::int FROM webhook_inbox WHERE status = 'pending') AS pending,
              (SELECT count(*)::int FROM pgboss.job WHERE name = 'webhooks') AS jobs`,
    );
    expect(rows[0]!.jobs).toBe(rows[0]!.pending);
    console.log(
      `[fuzz] seed ${seed}: ${webhooks.length} requests in ${seconds.toFixed(1)} s, ${signedBodies.size} signed bodies stored once`,
    );
  }, 120_000);
});
