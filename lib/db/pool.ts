import pg from "pg";
import { logger } from "../observability/logger";

// int8 (bigserial ids, amounts) as JS strings would leak into every caller; our ids and minor-unit
// amounts stay far below 2^53, so parse them as numbers once, here.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;
export type Queryable = Pick<pg.Pool, "query"> | Pick<pg.PoolClient, "query">;

/** How long a connection attempt (or a wait for a free pooled client) and a statement may take. */
export type DatabaseTimeouts = { connectMs: number; statementMs: number };

// Without bounds, a request made while the database is unreachable waits as long as the TCP stack
// does (minutes); with them it fails fast, and the caller answers 503 or retries.
export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { connectMs: 5_000, statementMs: 30_000 };

export type PoolOptions = {
  /**
   * false: commits don't wait for the WAL flush (synchronous_commit=off). Only for work that is
   * re-derived if a database crash loses its last few milliseconds (see the worker, docs/decisions.md);
   * never for ingest, whose 2xx promises durability.
   */
  synchronousCommit?: boolean;
  /**
   * What the URL reaches. PgBouncer passes on no startup parameters but a few, so behind it the
   * timeouts are SET on each new connection instead (session pooling: the session is ours) or left
   * to the server's configuration (transaction pooling: a SET would outlive our transaction on a
   * connection others share; set them with ALTER ROLE). Transaction pooling also forbids named
   * prepared statements on the PgBouncer Debian ships (1.18; 1.21+ can keep them per client).
   */
  pooler?: "none" | "session" | "transaction";
};

/** The work that needs a session of its own (a session advisory lock held across transactions). */
export class SessionRequiredError extends Error {
  override name = "SessionRequiredError";
}

/** Refuses to start `what` when the URL reaches PgBouncer in transaction pooling. */
export function requireSessionPooling(pooler: PoolOptions["pooler"], what: string): void {
  if (pooler === "transaction") {
    throw new SessionRequiredError(
      `${what} holds session advisory locks, which transaction pooling would hand to other clients: ` +
        "point its DATABASE_URL at PgBouncer in session pooling (pool_mode=session) or at PostgreSQL itself.",
    );
  }
}

type QueryFunction = (...args: unknown[]) => unknown;

// node-pg prepares a query config with a name once per connection and reuses it by name; behind
// transaction pooling the next transaction may run on a connection that never saw it. Dropping the
// name sends the same statement unnamed (parsed and planned on every call).
function withoutStatementNames(client: pg.PoolClient): void {
  const query = client.query.bind(client) as QueryFunction;
  (client as unknown as { query: QueryFunction }).query = (config: unknown, ...rest: unknown[]) =>
    query(config !== null && typeof config === "object" && "name" in config ? { ...config, name: undefined } : config, ...rest);
}

/**
 * A statement each connection parses and plans once, by name (node-pg prepares it on first use):
 * for the worker's per-event statements, which otherwise cost the database a parse and a plan on
 * every call. Names are global per connection: one name, one text.
 */
export function preparedStatement(name: string, text: string): (values: unknown[]) => pg.QueryConfig {
  return (values) => ({ name, text, values });
}

/**
 * A set-based statement (arrays in, one row per element) that the database plans on every call, for
 * the tables as they are then: a plan cached while a table was small, on a fresh install, would go on
 * scanning it whole once it has grown. A batch's planning is cheap next to its work.
 */
export function plannedPerCall(text: string): (values: unknown[]) => pg.QueryConfig {
  return (values) => ({ text, values });
}

export function createPool(
  connectionString: string,
  max = 10,
  applicationName = "webhook-inbox",
  timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
  options: PoolOptions = {},
): pg.Pool {
  const pooler = options.pooler ?? "none";
  const pool = new pg.Pool({
    connectionString,
    max,
    application_name: applicationName,
    connectionTimeoutMillis: timeouts.connectMs,
    // Server side, so a slow statement stops using the database; client side (a little later), so a
    // statement on a connection that silently died still ends.
    ...(pooler === "none" ? { statement_timeout: timeouts.statementMs } : {}),
    query_timeout: timeouts.statementMs + 5_000,
    keepAlive: true,
    ...(pooler === "none" && options.synchronousCommit === false ? { options: "-c synchronous_commit=off" } : {}),
  });
  if (pooler === "session") {
    const settings = `SET statement_timeout = ${timeouts.statementMs}${options.synchronousCommit === false ? "; SET synchronous_commit = off" : ""}`;
    pool.on("connect", (client) => {
      client
        .query(settings)
        .catch((error: Error) => logger("db").warn({ pool: applicationName, error: error.message }, "session settings failed"));
    });
  }
  if (pooler === "transaction") pool.on("connect", withoutStatementNames);
  // An idle client losing its connection (database restart) must not crash the process: the pool
  // drops it and opens a new connection on the next checkout.
  pool.on("error", (error) => logger("db").warn({ pool: applicationName, error: error.message }, "idle client error"));
  return pool;
}

/**
 * A single connection (migrations, admin statements). Its 'error' event (the server went away) is
 * heard here: the statement in flight rejects with the same error, so the caller still sees it.
 */
export async function connectClient(config: pg.ClientConfig): Promise<pg.Client> {
  const client = new pg.Client(config);
  client.on("error", (error) => logger("db").warn({ error: error.message }, "connection lost"));
  await client.connect();
  return client;
}

/**
 * Checks a client out for `work`. While checked out a client has no pool listener, and a connection
 * that dies then emits 'error' (fatal when unheard): this listener keeps the process up, and a
 * client that errored is released with its error so the pool discards it instead of reusing it.
 */
export async function withClient<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken ??= error;
  };
  client.on("error", onError);
  try {
    return await work(client);
  } catch (error) {
    broken ??= error instanceof Error && isDatabaseUnavailable(error) ? error : undefined;
    throw error;
  } finally {
    client.removeListener("error", onError);
    client.release(broken);
  }
}

/**
 * The rows of one query, `batch` at a time, through a cursor in a read-only transaction on a client
 * of its own: one plan, one snapshot (a row that changes while the rows are read neither moves nor
 * repeats), and only a batch held in memory. The client goes back to the pool when the rows run out,
 * when the reader stops early (the generator's return) or on an error.
 */
export async function* cursorRows<Row extends pg.QueryResultRow>(
  pool: pg.Pool,
  sql: string,
  params: unknown[],
  batch: number,
): AsyncGenerator<Row> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onError = (error: Error) => {
    broken ??= error;
  };
  client.on("error", onError);
  let open = false;
  try {
    await client.query("BEGIN READ ONLY");
    open = true;
    await client.query(`DECLARE rows_in_order NO SCROLL CURSOR FOR ${sql}`, params);
    for (;;) {
      const { rows } = await client.query<Row>(`FETCH ${batch} FROM rows_in_order`);
      yield* rows;
      if (rows.length < batch) break;
    }
    await client.query("COMMIT");
    open = false;
  } catch (error) {
    broken ??= error instanceof Error && isDatabaseUnavailable(error) ? error : undefined;
    throw error;
  } finally {
    if (open) await client.query("ROLLBACK").catch(() => undefined);
    client.removeListener("error", onError);
    client.release(broken);
  }
}

/** Runs `work` in a transaction on one client; rolls back on any throw. */
export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withClient(pool, async (client) => {
    await client.query("BEGIN");
    try {
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  });
}

// SQLSTATE classes and codes that mean "the database is not there right now", not "this statement
// is wrong": connection exceptions (08), shutdown and startup (57P01-57P03), too many connections,
// a statement cancelled by statement_timeout (an overloaded or stalled server).
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300", "57014"]);
const UNAVAILABLE_ERRNOS = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH", "EAI_AGAIN"]);
const UNAVAILABLE_MESSAGES = [
  "Connection terminated",
  "timeout exceeded when trying to connect",
  "Query read timeout",
  "Client has encountered a connection error",
  "Connection is closed",
  "the database system is",
];

/** Whether an error says the database is unreachable, restarting or stalled (retry later), by code or message. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && (code.startsWith("08") || UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_ERRNOS.has(code))) {
      return true;
    }
    if (UNAVAILABLE_MESSAGES.some((text) => current instanceof Error && current.message.includes(text))) return true;
    if (current instanceof AggregateError && current.errors.some((inner) => isDatabaseUnavailable(inner))) return true;
  }
  return false;
}
