import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool } from "./pool";
import { createTestDatabase, type TestDatabase } from "../testing/test-database";

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase("pool");
});
afterAll(async () => db.drop());

describe("createPool", () => {
  it("commits with the WAL flush by default, and without it only when asked (the worker)", async () => {
    const durable = createPool(db.url, 1, "test:durable");
    const relaxed = createPool(db.url, 1, "test:relaxed", { synchronousCommit: false });
    try {
      expect((await durable.query("SHOW synchronous_commit")).rows[0].synchronous_commit).toBe("on");
      expect((await relaxed.query("SHOW synchronous_commit")).rows[0].synchronous_commit).toBe("off");
    } finally {
      await Promise.all([durable.end(), relaxed.end()]);
    }
  });
});
