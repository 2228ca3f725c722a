import { describe, expect, it } from "vitest";
import { basicCredentials, verifySharedSecret } from "./shared-secret";

describe("shared secrets", () => {
  it.each([
    [`Basic ${Buffer.from("user:pa:ss").toString("base64")}`, "user:pa:ss"],
    [`basic ${Buffer.from("user:pass").toString("base64")}  `, "user:pass"],
    ["Bearer abc", null],
    ["Basic not base64!", null],
    ["", null],
    [undefined, null],
  ])("reads %s as %s", (header, credentials) => {
    expect(basicCredentials(header)).toBe(credentials);
  });

  it("accepts any configured secret and names what failed otherwise", () => {
    expect(verifySharedSecret("b", ["a", "b"], "token")).toEqual({ ok: true });
    expect(verifySharedSecret("c", ["a", "b"], "token")).toEqual({ ok: false, reason: "token matches no configured secret" });
    expect(verifySharedSecret("", [], "token").ok).toBe(false);
  });
});
