import { createPool } from "@/lib/db/pool";
import { loadWithoutRollupTrigger } from "./bench-database";

const SEED_BATCH = 100_000;

/**
 * `count` settled Stripe events over the last ~23 days (this month's partition and the default
 * one), with their ledger keys, through every index: what the inbox holds before the backlog comes.
 */
export async function seedInbox(url: string, count: number): Promise<void> {
  const started = Date.now();
  const pool = createPool(url, 1, "bench");
  try {
    await loadWithoutRollupTrigger(pool, async () => {
      for (let from = 1; from <= count; from += SEED_BATCH) {
        await pool.query(
          `WITH seeded AS (
             INSERT INTO webhook_inbox (provider, event_id, event_type, resource_id, customer_id, customer_email, payload, raw_body,
                                        occurred_at, occurred_at_precision, received_at, status, attempts, processed_at)
             SELECT 'stripe', 'evt_seed_' || g, 'charge.succeeded', 'ch_seed_' || (g / 2), 'cus_seed_' || (g % 50000),
                    'seed' || (g % 50000) || '@example.com',
                    jsonb_build_object('id', 'evt_seed_' || g, 'type', 'charge.succeeded',
                      'data', jsonb_build_object('object', jsonb_build_object('id', 'ch_seed_' || (g / 2), 'amount', 1000 + g % 9000))),
                    convert_to('{"id":"evt_seed_' || g || '"}', 'UTF8'),
                    now() - make_interval(secs => g % 2000000) - interval '1 second', 'second', now() - make_interval(secs => g % 2000000),
                    'processed', 1, now()
               FROM generate_series($1::int, $2::int) AS g
             RETURNING provider, event_id, id, received_at
           )
           INSERT INTO inbox_event_keys (provider, event_id, inbox_id, received_at) SELECT * FROM seeded`,
          [from, Math.min(count, from + SEED_BATCH - 1)],
        );
      }
    });
    await pool.query("VACUUM ANALYZE webhook_inbox");
  } finally {
    await pool.end();
  }
  console.log(`[seeded] ${count} settled events written first in ${((Date.now() - started) / 1000).toFixed(0)}s`);
}
