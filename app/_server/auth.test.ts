import { afterAll, describe, expect, it } from "vitest";
import type { CredentialsConfig } from "next-auth/providers/credentials";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { authOptions } from "./auth";
import { SIGN_IN_ERRORS } from "../login/sign-in-errors";

// The unit suite's DATABASE_URL points at a closed port: sign-in can't reach its database.

afterAll(async () => {
  await webRuntime().pool.end();
});

describe("sign-in without its database", () => {
  it("fails with a generic code, never the pool's error text (next-auth puts it in the login URL)", async () => {
    const credentials = authOptions().providers[0] as CredentialsConfig;
    const failure = await credentials.options.authorize!({ email: "admin@example.com", password: "a long enough password" }, {
      headers: {},
    } as never).then(
      () => null,
      (error: Error) => error,
    );
    expect(failure?.message).toBe(SIGN_IN_ERRORS.unavailable);
  });
});
