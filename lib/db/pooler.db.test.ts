import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPgbouncer, startReplicatedPostgres, type Pgbouncer, type ReplicatedPostgres } from "@/e2e/harness/replicated-postgres";
import { createPool, requireSessionPooling, SessionRequiredError } from "./pool";

// Our pools behind a real PgBouncer (Debian's) in transaction pooling with one server connection,
// so every client's transactions share it: what a statement name or a session setting would meet.

let replicated: ReplicatedPostgres;
let bouncer: Pgbouncer;

beforeAll(async () => {
  replicated = await startReplicatedPostgres("pooled");
  bouncer = await startPgbouncer({ pooled: { port: replicated.primary.port, dbname: "pooled", poolMode: "transaction", poolSize: 1 } });
});
afterAll(async () => {
  await bouncer?.stop();
  await replicated?.stop();
});

describe("behind PgBouncer in transaction pooling", () => {
  it("runs named statements from many clients on one shared server connection", async () => {
    const pool = createPool(bouncer.url("pooled"), 6, "test:pooled", undefined, { pooler: "transaction" });
    try {
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, index) =>
          pool.query<{ n: number }>({ name: "pooled-statement", text: "SELECT $1::int + 1 AS n", values: [index] }),
        ),
      );
      expect(answers.map((answer) => answer.rows[0]!.n)).toEqual(Array.from({ length: 30 }, (_, index) => index + 1));
    } finally {
      await pool.end();
    }
  });

  it("refuses, with the reason, what needs a session of its own", () => {
    expect(() => requireSessionPooling("transaction", "The worker")).toThrow(SessionRequiredError);
    expect(() => requireSessionPooling("transaction", "The worker")).toThrow(/^The worker holds session advisory locks.*pool_mode=session/);
    expect(() => requireSessionPooling("session", "The worker")).not.toThrow();
    expect(() => requireSessionPooling("none", "The worker")).not.toThrow();
  });
});
