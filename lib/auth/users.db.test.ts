import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "../audit/list-audit";
import { AppError } from "../errors/app-error";
import { createTestApp, type TestApp } from "../testing/test-app";
import { createUser, findActiveUser, listUsers, updateUser } from "./users";

// Users leave lib/auth as explicit accounts and a creation race is a conflict, on a database of this
// file's own.

let app: TestApp;
const PASSWORD = "a long enough password";
const ACCOUNT_KEYS = ["createdAt", "disabledAt", "email", "id", "mustChangePassword", "name", "role", "twoFactor"];

beforeAll(async () => {
  app = await createTestApp("users");
});
afterAll(async () => app.close());

describe("user accounts", () => {
  it("never carry the password hash: create, update, list and the session lookup", async () => {
    const created = await createUser(app.prisma, { email: "view@example.com", role: "viewer", password: PASSWORD }, "test");
    const updated = await updateUser(app.prisma, { id: created.user.id, role: "support" }, "test");
    const accounts = [created.user, updated, ...(await listUsers(app.prisma)), await findActiveUser(app.prisma, created.user.id)];
    for (const account of accounts) {
      expect(Object.keys(account!).sort()).toEqual(ACCOUNT_KEYS);
      expect(JSON.stringify(account)).not.toMatch(/scrypt|hash/i);
    }
    expect(JSON.stringify(created)).not.toMatch(/scrypt\$/);
  });
});

describe("createUser", () => {
  it("answers a conflict, not an internal error, to simultaneous creations of one e-mail", async () => {
    for (let round = 0; round < 3; round++) {
      const email = `race${round}@example.com`;
      const results = await Promise.allSettled(
        Array.from({ length: 2 }, () => createUser(app.prisma, { email, role: "viewer", password: PASSWORD }, "test")),
      );
      expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
      for (const result of results) {
        if (result.status === "rejected") {
          expect(result.reason).toBeInstanceOf(AppError);
          expect(result.reason).toMatchObject({ code: "CONFLICT", message: `a user with e-mail ${email} already exists` });
        }
      }
    }
  });
});

describe("updateUser", () => {
  it("leaves an admin when two admins demote each other at once", async () => {
    for (let round = 0; round < 5; round++) {
      await app.pool.query("UPDATE users SET role = 'viewer' WHERE role = 'admin'");
      const [a, b] = await Promise.all(
        ["a", "b"].map(
          async (name) =>
            (await createUser(app.prisma, { email: `${name}${round}@race.example`, role: "admin", password: PASSWORD }, "test")).user,
        ),
      );
      const results = await Promise.allSettled([
        updateUser(app.prisma, { id: b!.id, role: "viewer" }, a!.email),
        updateUser(app.prisma, { id: a!.id, role: "viewer" }, b!.email),
      ]);
      expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
      const { rows } = await app.pool.query("SELECT count(*)::int AS n FROM users WHERE role = 'admin' AND disabled_at IS NULL");
      expect(rows[0].n).toBe(1);
    }
  });

  it("refuses an admin disabling their own account, and audits changes with the address and the previous role", async () => {
    const { user: admin } = await createUser(app.prisma, { email: "self@audit.example", role: "admin", password: PASSWORD }, "test");
    const { user: other } = await createUser(app.prisma, { email: "other@audit.example", role: "support", password: PASSWORD }, "test");
    const me = { name: admin.email, userId: admin.id, ip: "203.0.113.9" };
    await expect(updateUser(app.prisma, { id: admin.id, disabled: true }, me)).rejects.toThrow(/your own account/);
    expect((await findActiveUser(app.prisma, admin.id))?.disabledAt).toBeNull();
    await updateUser(app.prisma, { id: other.id, role: "finance" }, me);
    const { rows } = await app.pool.query(
      "SELECT actor, ip, details FROM audit_log WHERE action = 'user_updated' ORDER BY id DESC LIMIT 1",
    );
    expect(rows[0]).toEqual({
      actor: admin.email,
      ip: "203.0.113.9",
      details: { email: other.email, role: "finance", previousRole: "support", previouslyDisabled: false },
    });
  });
});

describe("a user change", () => {
  it("writes its audit row, and the audit log reads the rows back newest first, paged by id", async () => {
    const created = await createUser(app.prisma, { email: "audited@example.com", role: "viewer", password: PASSWORD }, "admin@example.com");
    await updateUser(app.prisma, { id: created.user.id, disabled: true }, "admin@example.com");
    const { rows, nextBefore } = await listAudit(app.pool, { limit: 1 });
    expect(rows).toEqual([
      expect.objectContaining({
        actor: "admin@example.com",
        action: "user_updated",
        details: { email: "audited@example.com", previousRole: "viewer", disabled: true, previouslyDisabled: false },
      }),
    ]);
    const older = await listAudit(app.pool, { before: nextBefore!, action: "user_created" });
    expect(older.rows[0]).toMatchObject({ action: "user_created", details: { email: "audited@example.com", role: "viewer" } });
    expect(older.rows[0]!.id).toBeLessThan(rows[0]!.id);
  });
});
