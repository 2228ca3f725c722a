import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app";
import { authenticate } from "./login";
import { hashPassword, verifyPassword } from "./password";
import { createUser, ensureDemoAdmin, updateUser } from "./users";

let app: TestApp;
const PASSWORD = "a long enough password";

beforeAll(async () => {
  app = await createTestApp("login", { LOGIN_MAX_FAILURES: "3", LOGIN_WINDOW_MINUTES: "15" });
});
afterAll(async () => app.close());
beforeEach(async () => {
  await app.pool.query("TRUNCATE users, audit_log");
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

  it("locks an account after repeated failures, even for the right password, and per IP across accounts", async () => {
    await createUser(app.prisma, { email: "cy@example.com", role: "finance", password: PASSWORD }, "test");
    for (let i = 0; i < 3; i++) expect((await login("cy@example.com", "guess")).ok).toBe(false);
    expect(await login("cy@example.com", PASSWORD)).toEqual({ ok: false, reason: "rate_limited" });
    // Another IP can't sign in to the locked account either, but other accounts are unaffected...
    expect(await login("cy@example.com", PASSWORD, "10.9.9.9")).toEqual({ ok: false, reason: "rate_limited" });
    await createUser(app.prisma, { email: "di@example.com", role: "viewer", password: PASSWORD }, "test");
    expect((await login("di@example.com", PASSWORD, "10.9.9.9")).ok).toBe(true);
    // ...until one IP has failed on many accounts (4 x the per-account limit).
    for (let i = 0; i < 12; i++) await login(`spray${i}@example.com`, "guess", "10.6.6.6");
    expect(await login("di@example.com", PASSWORD, "10.6.6.6")).toEqual({ ok: false, reason: "rate_limited" });
    expect((await login("di@example.com", PASSWORD, "10.7.7.7")).ok).toBe(true);
  });
});

describe("users", () => {
  it("rejects a duplicate e-mail and keeps the last active admin", async () => {
    const { user: admin } = await createUser(app.prisma, { email: "root@example.com", role: "admin", password: PASSWORD }, "test");
    await expect(createUser(app.prisma, { email: "ROOT@example.com", role: "viewer", password: PASSWORD }, "test")).rejects.toThrow(/already exists/);
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
    await expect(createUser(app.prisma, { email: "x@example.com", role: "viewer", password: "short" }, "test")).rejects.toThrow(/12 characters/);
  });
});
