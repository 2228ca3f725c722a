import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyPassword } from "@/lib/auth/password";
import { createUser } from "@/lib/auth/users";
import { runCli } from "@/lib/testing/cli-process";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";

// The operator CLI's user commands as operators run them: a process, against DATABASE_URL.

let app: TestApp;
const cli = (...args: string[]) => runCli({ ...app.env, USER: "ops" }, args);

beforeAll(async () => {
  app = await createTestApp("cli_users");
});
afterAll(async () => {
  await app.close();
});

// Each test starts the CLI up to four times, one after the other: on a loaded machine a start alone
// can take tens of seconds.
describe("npm run cli, users", { timeout: 240_000 }, () => {
  it("user:create adds a user and prints a generated password once", async () => {
    const result = cli("user:create", "--email", "New@Example.com", "--role", "support");
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/created support new@example.com with password: \S{24}/);
    const { rows } = await app.pool.query("SELECT must_change_password FROM users WHERE email = 'new@example.com'");
    expect(rows).toEqual([{ must_change_password: true }]);
    expect(cli("user:create", "--email", "new@example.com", "--role", "admin").out).toContain("already exists");
    expect(cli("user:create", "--email", "x@example.com", "--role", "root").code).toBe(1);
  });

  it("user:reset-password prints a new password once, ends sessions and audits it", async () => {
    await createUser(app.prisma, { email: "lost@example.com", role: "admin", password: "the first long password" }, "test");
    const before = (await app.pool.query("SELECT password_hash, session_version FROM users WHERE email = 'lost@example.com'")).rows[0];
    const result = cli("user:reset-password", "--email", "LOST@example.com");
    expect(result.code).toBe(0);
    const password = /new password for lost@example.com: (\S{24})\n/.exec(result.out)?.[1];
    expect(password).toBeDefined();
    const after = (
      await app.pool.query("SELECT password_hash, session_version, must_change_password FROM users WHERE email = 'lost@example.com'")
    ).rows[0];
    expect(after.session_version).toBe(before.session_version + 1);
    expect(after.must_change_password).toBe(true);
    expect(await verifyPassword(password!, after.password_hash)).toBe(true);
    expect(await verifyPassword("the first long password", after.password_hash)).toBe(false);
    const { rows: audit } = await app.pool.query("SELECT actor, details FROM audit_log WHERE action = 'password_reset'");
    expect(audit).toEqual([{ actor: expect.stringMatching(/^cli:/), details: { email: "lost@example.com" } }]);
    expect(cli("user:reset-password", "--email", "nobody@example.com")).toMatchObject({ code: 1, out: expect.stringContaining("no user") });
  });

  it("user:reset-2fa turns a user's two-step sign-in off, audited", async () => {
    await createUser(app.prisma, { email: "phone@example.com", role: "admin", password: "the first long password" }, "test");
    await app.pool.query(
      "UPDATE users SET totp_secret = 'v1.x.y.z', totp_enabled_at = now(), recovery_code_hashes = '{a,b}' WHERE email = 'phone@example.com'",
    );
    const result = cli("user:reset-2fa", "--email", "Phone@example.com");
    expect(result).toMatchObject({ code: 0, out: expect.stringContaining("two-step sign-in is off for phone@example.com") });
    const { rows } = await app.pool.query(
      "SELECT totp_secret, totp_enabled_at, cardinality(recovery_code_hashes) AS codes FROM users WHERE email = 'phone@example.com'",
    );
    expect(rows).toEqual([{ totp_secret: null, totp_enabled_at: null, codes: 0 }]);
    const { rows: audit } = await app.pool.query("SELECT actor FROM audit_log WHERE action = 'two_factor_disabled'");
    expect(audit).toEqual([{ actor: expect.stringMatching(/^cli:/) }]);
  });

  it("user:unlink-sso forgets a user's single sign-on identity and ends their sessions, audited", async () => {
    await createUser(app.prisma, { email: "linked@example.com", role: "viewer", password: "the first long password" }, "test");
    await app.pool.query(
      "UPDATE users SET oidc_issuer = 'https://id.example.com', oidc_subject = 'idp-42' WHERE email = 'linked@example.com'",
    );
    const result = cli("user:unlink-sso", "--email", "Linked@example.com");
    expect(result).toMatchObject({ code: 0, out: expect.stringContaining("linked@example.com is no longer linked to subject idp-42") });
    const { rows } = await app.pool.query(
      "SELECT oidc_issuer, oidc_subject, session_version FROM users WHERE email = 'linked@example.com'",
    );
    expect(rows).toEqual([{ oidc_issuer: null, oidc_subject: null, session_version: 1 }]);
    const { rows: audit } = await app.pool.query(
      "SELECT actor, details->>'subject' AS subject FROM audit_log WHERE action = 'sso_unlinked'",
    );
    expect(audit).toEqual([{ actor: expect.stringMatching(/^cli:/), subject: "idp-42" }]);
    expect(cli("user:unlink-sso", "--email", "linked@example.com")).toMatchObject({
      code: 1,
      out: expect.stringContaining("no single sign-on identity"),
    });
  });
});
