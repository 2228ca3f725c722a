import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app";
import { authenticate } from "./login";
import { admitAttempt } from "./login-throttle";
import { hashPassword, verifyPassword } from "./password";
import { createUser, currentSessionVersion, endSessions, ensureDemoAdmin, findActiveUser, resetPassword, updateUser } from "./users";

let app: TestApp;
const PASSWORD = "a long enough password";

beforeAll(async () => {
  app = await createTestApp("login", { LOGIN_MAX_FAILURES: "3", LOGIN_WINDOW_MINUTES: "15" });
});
afterAll(async () => app.close());
beforeEach(async () => {
  await app.pool.query("TRUNCATE users, audit_log, login_attempts");
});

const login = (email: string, password: string, ip = "10.0.0.1") => authenticate(app, { email, password, ip });

async function auditActions() {
  const { rows } = await app.pool.query("SELECT actor, action, ip, details->>'reason' AS reason FROM audit_log ORDER BY id");
  return rows;
}

describe("passwords", () => {
  it("hashes with a salt and verifies only the right password", async () => {
    const first = await hashPassword("secret one");
    expect(first).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(await hashPassword("secret one")).not.toBe(first);
    expect(await verifyPassword("secret one", first)).toBe(true);
    expect(await verifyPassword("secret two", first)).toBe(false);
    expect(await verifyPassword("secret one", "plain")).toBe(false);
  });
});

describe("authenticate", () => {
  it("signs in with the right password (any e-mail case) and audits it", async () => {
    await createUser(app.prisma, { email: "Ana@Example.com", role: "support", password: PASSWORD }, "test");
    const result = await login("ana@EXAMPLE.com", PASSWORD);
    expect(result).toMatchObject({ ok: true, user: { email: "ana@example.com", role: "support" } });
    expect(await auditActions()).toEqual([
      { actor: "test", action: "user_created", ip: null, reason: null },
      { actor: "ana@example.com", action: "login", ip: "10.0.0.1", reason: null },
    ]);
  });

  it("refuses a wrong password, an unknown e-mail and a disabled user alike", async () => {
    const { user } = await createUser(app.prisma, { email: "bo@example.com", role: "viewer", password: PASSWORD }, "test");
    await createUser(app.prisma, { email: "admin@example.com", role: "admin", password: PASSWORD }, "test");
    expect(await login("bo@example.com", "wrong password")).toEqual({ ok: false, reason: "invalid" });
    expect(await login("nobody@example.com", PASSWORD)).toEqual({ ok: false, reason: "invalid" });
    await updateUser(app.prisma, { id: user.id, disabled: true }, "admin@example.com");
    expect(await login("bo@example.com", PASSWORD)).toEqual({ ok: false, reason: "invalid" });
    const reasons = (await auditActions()).filter((row) => row.action === "login_failed").map((row) => row.reason);
    expect(reasons).toEqual(["wrong_password", "unknown_email", "disabled"]);
  });

  // Attempts are dated by the database clock: "time passes" moves them back, no sleeping.
  const age = (seconds: number) => app.pool.query("UPDATE login_attempts SET at = at - make_interval(secs => $1)", [seconds]);

  it("backs off one account from one address, doubling, while the owner elsewhere still signs in", async () => {
    await createUser(app.prisma, { email: "admin@example.com", role: "admin", password: PASSWORD }, "test");
    for (let i = 0; i < 3; i++) expect((await login("admin@example.com", "guess", "10.6.6.6")).ok).toBe(false);
    // The attacker's address waits, even with the right password...
    expect(await login("admin@example.com", PASSWORD, "10.6.6.6")).toEqual({ ok: false, reason: "rate_limited" });
    // ...but the admin, from their own address, is not locked out.
    expect((await login("admin@example.com", PASSWORD, "10.0.0.1")).ok).toBe(true);
    // 3 free failures, then 30 s; the next failure doubles it to 60 s.
    await age(31);
    expect(await login("admin@example.com", "guess", "10.6.6.6")).toEqual({ ok: false, reason: "invalid" });
    await age(31);
    expect(await login("admin@example.com", PASSWORD, "10.6.6.6")).toEqual({ ok: false, reason: "rate_limited" });
    await age(30);
    expect((await login("admin@example.com", PASSWORD, "10.6.6.6")).ok).toBe(true);
    // A success from that address clears its count.
    expect(await login("admin@example.com", "guess", "10.6.6.6")).toEqual({ ok: false, reason: "invalid" });
    expect((await login("admin@example.com", PASSWORD, "10.6.6.6")).ok).toBe(true);
  });

  it("caps the backoff at the window and forgets failures after a day", async () => {
    await createUser(app.prisma, { email: "cy@example.com", role: "finance", password: PASSWORD }, "test");
    // 20 failures: 30 s x 2^17 uncapped; the window (15 min) caps it.
    await app.pool.query(
      "INSERT INTO login_attempts (email, network, outcome) SELECT 'cy@example.com', '10.0.0.1/32', 'failed' FROM generate_series(1, 20)",
    );
    expect(await login("cy@example.com", PASSWORD)).toEqual({ ok: false, reason: "rate_limited" });
    await age(15 * 60 - 5);
    expect(await login("cy@example.com", PASSWORD)).toEqual({ ok: false, reason: "rate_limited" });
    await age(6);
    expect((await login("cy@example.com", PASSWORD)).ok).toBe(true);
    await app.pool.query("TRUNCATE login_attempts");
    for (let i = 0; i < 4; i++) await login("cy@example.com", "guess");
    await age(24 * 3600 + 1);
    expect((await login("cy@example.com", PASSWORD)).ok).toBe(true);
  });

  it("counts concurrent attempts one after another: a burst gets no more checks than the limit", async () => {
    await createUser(app.prisma, { email: "flo@example.com", role: "admin", password: PASSWORD }, "test");
    // Straight at the throttle, 60 at once: exactly the limit is let through to be checked.
    const admitted = await Promise.all(
      Array.from({ length: 60 }, () => admitAttempt(app.pool, "flo@example.com", "10.9.9.9", app.config.login)),
    );
    expect(admitted.filter(Boolean)).toHaveLength(3);
    await app.pool.query("TRUNCATE login_attempts");
    // Through sign-in, 60 at once: most are refused before the database, and at most the limit are checked.
    const results = await Promise.all(Array.from({ length: 60 }, () => login("flo@example.com", "guess", "10.9.9.9")));
    expect(results.filter((result) => !result.ok && result.reason === "rate_limited").length).toBeGreaterThanOrEqual(57);
    const checked = (await auditActions()).filter((row) => row.reason === "wrong_password");
    expect(checked.length).toBeLessThanOrEqual(3);
    // The owner, elsewhere, signs in.
    expect((await login("flo@example.com", PASSWORD, "10.1.1.1")).ok).toBe(true);
  });

  it("counts an IPv6 address as its /64, and backs an account off everywhere once its failures from all addresses pile up", async () => {
    await createUser(app.prisma, { email: "ev@example.com", role: "admin", password: PASSWORD }, "test");
    for (let i = 0; i < 3; i++) await login("ev@example.com", "guess", "2001:db8:1:2::1");
    // Another address of the same /64 is the same client.
    expect(await login("ev@example.com", PASSWORD, "2001:db8:1:2::ffff")).toEqual({ ok: false, reason: "rate_limited" });
    expect((await login("ev@example.com", PASSWORD, "2001:db8:1:3::1")).ok).toBe(true);
    // 3 failures from each of three addresses: 9 = 3 x 3 for the account, so a fourth address waits too.
    for (const address of ["10.1.1.1", "10.2.2.2", "::1"]) {
      for (let i = 0; i < 3; i++) expect(await login("ev@example.com", "guess", address)).toEqual({ ok: false, reason: "invalid" });
    }
    expect(await login("ev@example.com", PASSWORD, "127.0.0.1")).toEqual({ ok: false, reason: "rate_limited" });
    await age(31);
    expect((await login("ev@example.com", PASSWORD, "127.0.0.1")).ok).toBe(true);
  });

  it("refuses an address that fails on many accounts (4 x the per-account limit)", async () => {
    await createUser(app.prisma, { email: "di@example.com", role: "viewer", password: PASSWORD }, "test");
    for (let i = 0; i < 12; i++) await login(`spray${i}@example.com`, "guess", "10.6.6.6");
    expect(await login("di@example.com", PASSWORD, "10.6.6.6")).toEqual({ ok: false, reason: "rate_limited" });
    expect((await login("di@example.com", PASSWORD, "10.7.7.7")).ok).toBe(true);
  });
});

describe("sessions and password resets", () => {
  it("bumps the session version on reset, role change and disable, not on a no-op update", async () => {
    const { user } = await createUser(app.prisma, { email: "ed@example.com", role: "support", password: PASSWORD }, "test");
    await createUser(app.prisma, { email: "root@example.com", role: "admin", password: PASSWORD }, "test");
    const signedIn = await login("ed@example.com", PASSWORD);
    if (!signedIn.ok) throw new Error("sign-in failed");
    expect(await findActiveUser(app.prisma, user.id, signedIn.sessionVersion)).toMatchObject({ email: "ed@example.com" });
    await updateUser(app.prisma, { id: user.id, role: "support" }, "root@example.com");
    expect(await currentSessionVersion(app.prisma, user.id)).toBe(signedIn.sessionVersion);
    await updateUser(app.prisma, { id: user.id, role: "finance" }, "root@example.com");
    expect(await findActiveUser(app.prisma, user.id, signedIn.sessionVersion)).toBeNull();
    await updateUser(app.prisma, { id: user.id, disabled: true }, "root@example.com");
    expect(await currentSessionVersion(app.prisma, user.id)).toBe(signedIn.sessionVersion + 2);
    await endSessions(app.prisma, user.id);
    expect(await currentSessionVersion(app.prisma, user.id)).toBe(signedIn.sessionVersion + 3);
  });

  it("resets a password: the new one works once handed over, the old one and old sessions don't, audited", async () => {
    await createUser(app.prisma, { email: "fay@example.com", role: "admin", password: PASSWORD }, "test");
    const before = await login("fay@example.com", PASSWORD);
    if (!before.ok) throw new Error("sign-in failed");
    const { password } = await resetPassword(app.prisma, " FAY@example.com", "cli:ops");
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(await findActiveUser(app.prisma, before.user.id, before.sessionVersion)).toBeNull();
    expect(await login("fay@example.com", PASSWORD)).toEqual({ ok: false, reason: "invalid" });
    expect((await login("fay@example.com", password)).ok).toBe(true);
    const audit = (await auditActions()).filter((row) => row.action === "password_reset");
    expect(audit).toEqual([{ actor: "cli:ops", action: "password_reset", ip: null, reason: null }]);
    const details = await app.pool.query("SELECT details FROM audit_log WHERE action = 'password_reset'");
    expect(details.rows[0].details).toEqual({ email: "fay@example.com" });
    await expect(resetPassword(app.prisma, "ghost@example.com", "cli:ops")).rejects.toThrow(/no user/);
  });
});

describe("users", () => {
  it("rejects a duplicate e-mail and keeps the last active admin", async () => {
    const { user: admin } = await createUser(app.prisma, { email: "root@example.com", role: "admin", password: PASSWORD }, "test");
    await expect(createUser(app.prisma, { email: "ROOT@example.com", role: "viewer", password: PASSWORD }, "test")).rejects.toThrow(
      /already exists/,
    );
    await expect(updateUser(app.prisma, { id: admin.id, role: "viewer" }, "root@example.com")).rejects.toThrow(/last active admin/);
    await expect(updateUser(app.prisma, { id: admin.id, disabled: true }, "root@example.com")).rejects.toThrow(/last active admin/);
    await createUser(app.prisma, { email: "second@example.com", role: "admin", password: PASSWORD }, "test");
    expect((await updateUser(app.prisma, { id: admin.id, role: "viewer" }, "second@example.com")).role).toBe("viewer");
  });

  it("creates the demo admin only on an empty database, with a generated password", async () => {
    const created = await ensureDemoAdmin(app.prisma, "demo@example.com");
    expect(created?.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect((await login("demo@example.com", created!.password)).ok).toBe(true);
    expect(await ensureDemoAdmin(app.prisma, "demo@example.com")).toBeNull();
  });

  it("refuses short passwords", async () => {
    await expect(createUser(app.prisma, { email: "x@example.com", role: "viewer", password: "short" }, "test")).rejects.toThrow(
      /12 characters/,
    );
  });
});
