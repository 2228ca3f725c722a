import { describe, expect, it } from "vitest";
import { testAdminDatabaseUrl } from "../config/process-env";
import { adminQuery } from "./admin-database";
import { createTestDatabase } from "./test-database";

// The unit suite runs without PostgreSQL (vitest.config.ts): a file that reaches for a database
// there fails, and the test harness says how to move it to the integration suite.

describe("the unit suite", () => {
  it("has no database to reach", async () => {
    expect(new URL(testAdminDatabaseUrl()).port).toBe("1");
    await expect(adminQuery("SELECT 1")).rejects.toThrow(/ECONNREFUSED/);
  });

  it("tells a file that creates a test database to be named *.db.test.ts", async () => {
    await expect(createTestDatabase("misfiled")).rejects.toThrow(
      "lib/testing/unit-suite.test.ts uses PostgreSQL but runs in the unit suite, which has none: name it *.db.test.ts",
    );
  });
});
