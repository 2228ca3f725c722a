import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../errors/app-error";
import { createTestApp, type TestApp } from "../testing/test-app";
import { createUser, findActiveUser, listUsers, updateUser } from "./users";

// Users leave lib/auth as explicit views (issue 8, finding 3) and a creation race is a conflict
// (finding 9), on a database of this file's own.

let app: TestApp;
const PASSWORD = "a long enough password";
const VIEW_KEYS = ["createdAt", "disabledAt", "email", "id", "name", "role"];

beforeAll(async () => {
  app = await createTestApp("users");
});
afterAll(async () => app.close());

describe("user views", () => {
  it("never carry the password hash: create, update, list and the session lookup", async () => {
    const created = await createUser(app.prisma, { email: "view@example.com", role: "viewer", password: PASSWORD }, "test");
    const updated = await updateUser(app.prisma, { id: created.user.id, role: "support" }, "test");
    const views = [created.user, updated, ...(await listUsers(app.prisma)), await findActiveUser(app.prisma, created.user.id)];
    for (const view of views) {
      expect(Object.keys(view!).sort()).toEqual(VIEW_KEYS);
      expect(JSON.stringify(view)).not.toMatch(/scrypt|hash/i);
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
