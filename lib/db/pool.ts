import pg from "pg";

// int8 (bigserial ids, amounts) as JS strings would leak into every caller; our ids and minor-unit
// amounts stay far below 2^53, so parse them as numbers once, here.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Queryable = Pick<pg.Pool, "query"> | Pick<pg.PoolClient, "query">;

export type PoolOptions = {
  /**
   * false: commits don't wait for the WAL flush (synchronous_commit=off). Only for work that is
   * re-derived if a database crash loses its last few milliseconds (see the worker, docs/decisions.md);
   * never for ingest, whose 2xx promises durability.
   */
  synchronousCommit?: boolean;
};

export function createPool(connectionString: string, max = 10, applicationName = "webhook-inbox", options: PoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    application_name: applicationName,
    ...(options.synchronousCommit === false ? { options: "-c synchronous_commit=off" } : {}),
  });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on("error", (error) => console.error("[db] idle client error:", error.message));
  return pool;
}

/** Runs `work` in a transaction on one client; rolls back on any throw. */
export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
