import { describe, expect, it } from "vitest";
import { storedHeaders } from "./attempt-headers";

describe("an attempt's stored headers", () => {
  it("masks the signature's values but keeps each scheme, and masks credentials in answers", () => {
    const stored = storedHeaders({
      "Content-Type": "application/json",
      "webhook-id": "chg_1",
      "webhook-signature": "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4= v1,Zm9vYmFy",
      "Set-Cookie": ["session=abc", "other=def"],
      authorization: "Bearer sk_live_1",
      "x-api-key": "k",
    });
    expect(stored).toEqual({
      "content-type": "application/json",
      "webhook-id": "chg_1",
      "webhook-signature": "v1,*** v1,***",
      "set-cookie": "***",
      authorization: "***",
      "x-api-key": "***",
    });
  });

  it("keeps at most 40 headers, values cut at 300 characters", () => {
    const many = Object.fromEntries(Array.from({ length: 60 }, (_, index) => [`x-h${index}`, "v".repeat(1000)]));
    const stored = storedHeaders(many);
    expect(Object.keys(stored)).toHaveLength(40);
    expect(stored["x-h0"]).toHaveLength(300);
  });
});
