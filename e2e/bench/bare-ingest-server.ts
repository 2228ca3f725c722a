import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:http";
import pg from "pg";

// The bench's reference: the least a server can do for the same signed webhook. node:http + pg, no
// framework, no drivers: check the Stripe signature (HMAC-SHA256, tolerance), read the JSON, and in
// one statement insert the same dedupe key and inbox row (ON CONFLICT on the ledger) and a webhooks job for the app's
// worker. Started by `npm run bench:ingest` with DATABASE_URL, PORT and WEBHOOK_SECRET_STRIPE.
// BARE_STYLE=seed makes it the seed-style server instead: the same check, then one
// `INSERT ... ON CONFLICT DO NOTHING` of one row (a table of its own with two indexes, its primary key
// and the event's key) per request, no ledger, no job, its own commit.

const secret = process.env.WEBHOOK_SECRET_STRIPE!;
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const { rows } = await pool.query<{ table_name: string }>("SELECT table_name FROM pgboss.queue WHERE name = 'webhooks'");
const jobTable = `pgboss.${rows[0]!.table_name}`;
const seedStyle = process.env.BARE_STYLE === "seed";
if (seedStyle) {
  await pool.query(`CREATE TABLE IF NOT EXISTS seed_webhooks (
    id bigserial PRIMARY KEY, provider text NOT NULL, event_id text NOT NULL, payload jsonb NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(), UNIQUE (provider, event_id))`);
}

const SEED_INSERT = `
  INSERT INTO seed_webhooks (provider, event_id, payload) VALUES ('stripe', $1, $2::jsonb)
  ON CONFLICT (provider, event_id) DO NOTHING RETURNING id`;

const INSERT = `
  WITH key AS (
    INSERT INTO inbox_event_keys (provider, event_id, inbox_id, received_at)
    VALUES ('stripe', $1, nextval('webhook_inbox_id_seq'), now())
    ON CONFLICT (provider, event_id) DO NOTHING
    RETURNING inbox_id, received_at
  ), ins AS (
    INSERT INTO webhook_inbox (id, received_at, provider, event_id, event_type, resource_id, customer_id, customer_email, payload,
                               raw_body, headers, occurred_at, occurred_at_precision)
    SELECT key.inbox_id, key.received_at, 'stripe', $1, $2::text, $3::text, $4::text, $5::text, $6::jsonb, $7::bytea, $8::jsonb,
           to_timestamp($9::float8), 'second'
      FROM key
    RETURNING id
  ), job AS (
    INSERT INTO ${jobTable} (name, data, singleton_key, policy, retry_limit, retry_delay, retry_backoff, expire_seconds)
    SELECT 'webhooks', jsonb_build_object('inboxId', id), 'stripe:' || $3, 'singleton', 5, 2, true, 120 FROM ins
    ON CONFLICT DO NOTHING
  )
  SELECT id FROM ins`;

function verified(body: Buffer, header: string | undefined): boolean {
  const parts = new Map((header ?? "").split(",").map((part) => part.split("=", 2) as [string, string]));
  const timestamp = Number(parts.get("t"));
  const given = Buffer.from(parts.get("v1") ?? "", "hex");
  if (!Number.isFinite(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > 300) return false;
  const expected = createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function reply(response: import("node:http").ServerResponse, status: number, body: string) {
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  response.end(body);
}

createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (chunk: Buffer) => chunks.push(chunk));
  request.on("end", () => {
    const body = Buffer.concat(chunks);
    if (!verified(body, request.headers["stripe-signature"] as string | undefined))
      return reply(response, 401, '{"error":"invalid signature"}');
    const event = JSON.parse(body.toString("utf8"));
    const charge = event.data.object;
    const values = seedStyle
      ? [event.id, body.toString("utf8")]
      : [
          event.id,
          event.type,
          charge.id,
          charge.customer ?? null,
          charge.billing_details?.email?.toLowerCase() ?? null,
          body.toString("utf8"),
          body,
          JSON.stringify({ "stripe-signature": request.headers["stripe-signature"] }),
          event.created,
        ];
    pool.query<{ id: number }>(seedStyle ? SEED_INSERT : INSERT, values).then(
      (result) => reply(response, 200, `{"received":true,"duplicate":${result.rowCount === 0}}`),
      (error: Error) => reply(response, 500, JSON.stringify({ error: error.message })),
    );
  });
}).listen(Number(process.env.PORT), "127.0.0.1", () => console.log("[bare] listening"));
