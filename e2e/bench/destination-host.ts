import type { Pool } from "@/lib/db/pool";
import { generateSecret } from "@/lib/destinations/sign-message";
import { startHostReceiver, type HostReceiver } from "../simulator/host-receiver";

// The host side of the benches that push changes: a local receiver verifying every push with the
// standardwebhooks library, and the wait for every change of a drained database to reach it.

export type DestinationHost = {
  host: HostReceiver;
  secret: string;
  /** What a worker needs to push to it as the configured destination. */
  env: { DESTINATION_URL: string; DESTINATION_SECRET: string };
};

/** A new host receiver with a secret of its own. */
export async function startDestinationHost(): Promise<DestinationHost> {
  const secret = generateSecret();
  const host = await startHostReceiver(secret);
  return { host, secret, env: { DESTINATION_URL: host.url, DESTINATION_SECRET: secret } };
}

/** The number a `SELECT count(*)::int AS n ...` returns. */
export const countRows = async (pool: Pool, sql: string) => (await pool.query<{ n: number }>(sql)).rows[0]!.n;

export type Delivered = { changes: number; seconds: number; verified: number; outOfOrder: number; rejected: number };

/**
 * Seconds until every change row of `pool`'s database is delivered (polled; one destination), and
 * what `host` made of them. Throws past `timeoutSeconds`, so a push that never lands ends the run.
 */
export async function waitAllDelivered(pool: Pool, host: HostReceiver, timeoutSeconds = 600): Promise<Delivered> {
  const started = Date.now();
  const changes = await countRows(pool, "SELECT count(*)::int AS n FROM payment_changes");
  while ((await countRows(pool, "SELECT count(*)::int AS n FROM deliveries WHERE status = 'delivered'")) < changes) {
    if (Date.now() - started > timeoutSeconds * 1000)
      throw new Error(`not every one of ${changes} changes was delivered in ${timeoutSeconds}s`);
    await new Promise((done) => setTimeout(done, 200));
  }
  return {
    changes,
    seconds: (Date.now() - started) / 1000,
    verified: host.applied.length,
    outOfOrder: host.outOfOrder.length,
    rejected: host.rejected,
  };
}

/** "every one of N changes delivered and verified", or what fell short: the run's proof in one line. */
export function describeDelivered(delivered: Delivered): string {
  const complete = delivered.verified === delivered.changes && delivered.outOfOrder === 0 && delivered.rejected === 0;
  return complete
    ? `every one of ${delivered.changes} changes delivered and verified by the host (standardwebhooks), none out of order`
    : `NOT ALL DELIVERED: ${delivered.verified} of ${delivered.changes} changes verified by the host, ${delivered.outOfOrder} out of order, ` +
        `${delivered.rejected} signatures rejected`;
}
