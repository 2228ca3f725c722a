import { readFileSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EMBEDDED_SUPERUSER, embeddedCluster, freePort, startEmbeddedPostgres, urlFor, type EmbeddedDatabase } from "./embedded";
import { connectClient } from "./pool";

// The embedded cluster's credentials on real clusters of this file's own (under .data/, which the
// `postgres` OS user can reach when tests run as root).

const root = resolve(`.data/embedded-tests/${process.pid}`);
const started: EmbeddedDatabase[] = [];
afterAll(async () => {
  for (const database of started) await database.stop();
  rmSync(root, { recursive: true, force: true });
});

const LEGACY_PASSWORD = "webhook-inbox-local";

async function refused(url: string): Promise<boolean> {
  return connectClient({ connectionString: url }).then(
    async (client) => (await client.end(), false),
    () => true,
  );
}

async function appRoleFacts(url: string) {
  const client = await connectClient({ connectionString: url });
  try {
    const { rows } = await client.query("SELECT current_user AS user, rolsuper AS superuser FROM pg_roles WHERE rolname = current_user");
    // What migrations need: a trusted extension and tables of its own.
    await client.query("CREATE EXTENSION IF NOT EXISTS pg_trgm");
    const program = await client.query("COPY (SELECT 1) TO PROGRAM 'true'").then(
      () => "ran",
      (error: Error) => error.message,
    );
    return { ...rows[0], program };
  } finally {
    await client.end();
  }
}

describe("embedded PostgreSQL credentials", () => {
  it("generates the superuser's password at first initialisation, keeps it 0600 beside the data, and connects the app as a non-superuser owner", async () => {
    const dataDir = join(root, "fresh", "postgres");
    const database = await startEmbeddedPostgres(dataDir, undefined, await freePort());
    started.push(database);
    const secrets = readFileSync(join(root, "fresh", "secrets.env"), "utf8");
    expect(statSync(join(root, "fresh", "secrets.env")).mode & 0o777).toBe(0o600);
    const superuserPassword = /EMBEDDED_POSTGRES_SUPERUSER_PASSWORD=(\S+)/.exec(secrets)?.[1];
    expect(superuserPassword).toMatch(/^[\w-]{40,}$/);
    expect(database.url).not.toContain(superuserPassword!);
    expect(new URL(database.url).username).toBe("webhook_inbox");
    expect(await appRoleFacts(database.url)).toEqual({
      user: "webhook_inbox",
      superuser: false,
      program: expect.stringMatching(/permission denied|must be superuser|pg_execute_server_program/),
    });
    expect(await refused(urlFor(database.port, "postgres", EMBEDDED_SUPERUSER, LEGACY_PASSWORD))).toBe(true);
    expect(await refused(database.adminUrl)).toBe(false);
  });

  it("moves an earlier version's cluster (fixed password, tables owned by the superuser) to generated passwords and the app role", async () => {
    const dataDir = join(root, "legacy", "postgres");
    const port = await freePort();
    const cluster = embeddedCluster(dataDir, port, LEGACY_PASSWORD);
    await cluster.initialise();
    await cluster.start();
    const legacyAdmin = await connectClient({ connectionString: urlFor(port, "postgres", EMBEDDED_SUPERUSER, LEGACY_PASSWORD) });
    await legacyAdmin.query("CREATE DATABASE webhook_inbox");
    await legacyAdmin.end();
    const legacyApp = await connectClient({ connectionString: urlFor(port, "webhook_inbox", EMBEDDED_SUPERUSER, LEGACY_PASSWORD) });
    await legacyApp.query(
      "CREATE SCHEMA pgboss; CREATE TABLE pgboss.job (id serial PRIMARY KEY); CREATE TABLE payments (id bigserial PRIMARY KEY, status text)",
    );
    await legacyApp.query("INSERT INTO payments (status) VALUES ('paid')");
    await legacyApp.end();
    await cluster.stop();

    const database = await startEmbeddedPostgres(dataDir, undefined, port);
    started.push(database);
    expect(await refused(urlFor(port, "postgres", EMBEDDED_SUPERUSER, LEGACY_PASSWORD))).toBe(true);
    const app = await connectClient({ connectionString: database.url });
    try {
      expect((await app.query("SELECT status FROM payments")).rows).toEqual([{ status: "paid" }]);
      await app.query("ALTER TABLE payments ADD COLUMN note text; INSERT INTO pgboss.job DEFAULT VALUES");
    } finally {
      await app.end();
    }
    // A second start is an ordinary one.
    await database.stop();
    const again = await startEmbeddedPostgres(dataDir, undefined, port);
    started.push(again);
    expect(again.url).toBe(database.url);
  });
});
