import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app";
import { AppError, asAppError, errorForLog } from "./app-error";

// What the one error wrapper makes of database errors, on real PostgreSQL errors: bad input is a 400 and a taken key a 409, never the database's text; logs
// carry the error's class, never the payload a jsonb error quotes.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp("app_error");
});
afterAll(async () => app.close());

async function databaseError(sql: string, params: unknown[]): Promise<unknown> {
  return app.pool.query(sql, params).then(
    () => {
      throw new Error(`expected ${sql} to fail`);
    },
    (error: unknown) => error,
  );
}

describe("asAppError", () => {
  it("maps input the database refused to 400 and a duplicate key to 409, without the database's text", async () => {
    const cases: [string, unknown[], string][] = [
      ["SELECT $1::bigint", ["99999999999999999999"], "BAD_REQUEST"],
      ["SELECT $1::timestamptz", ["garbage"], "BAD_REQUEST"],
      ["SELECT $1::text", ["a\u0000b"], "BAD_REQUEST"],
      ["SELECT $1::jsonb", ['{"card":"4111111111111111","x":"\\u0000"}'], "BAD_REQUEST"],
      [
        "INSERT INTO users (email, role, password_hash) VALUES ('dup@example.com', 'viewer', 'x'), ('dup@example.com', 'viewer', 'x')",
        [],
        "CONFLICT",
      ],
    ];
    for (const [sql, params, code] of cases) {
      const mapped = asAppError(await databaseError(sql, params));
      expect(mapped, sql).toBeInstanceOf(AppError);
      expect(mapped!.code).toBe(code);
      expect(mapped!.message).not.toMatch(/bigint|timestamp|jsonb|users_email|4111|invalid input syntax/i);
    }
    expect(asAppError({ code: "P2002" })?.code).toBe("CONFLICT");
    expect(asAppError(new Error("boom"))).toBeNull();
  });
});

describe("errorForLog", () => {
  it("logs a jsonb error's class and code, never the payload snippet it quotes", async () => {
    const error = await databaseError("SELECT $1::jsonb", ['{"card": "4111111111111111", "name": "Ana Souza", "x": tru}']);
    // The database's own error does quote the payload: that is what must not reach a log.
    expect(JSON.stringify(error) + String((error as Error).message)).toMatch(/4111|Souza|tru/);
    const line = errorForLog(error);
    expect(line).toMatch(/^error \(code 22P02\)/);
    expect(line).not.toMatch(/4111|Souza|tru\b|card/);
  });

  it("logs a JSON.parse error without its quote of the body", () => {
    let thrown: unknown;
    try {
      JSON.parse("cpf 123.456.789-09");
    } catch (error) {
      thrown = error;
    }
    expect(String((thrown as Error).message)).toContain("123.456");
    expect(errorForLog(thrown)).toMatch(/^SyntaxError\n/);
    expect(errorForLog(thrown)).not.toContain("123.456");
  });
});
