import { describe, expect, it } from "vitest";
import { jsonDepthExceeds } from "../../providers/parse-helpers";
import { stripeDriver } from "../../providers/stripe";
import type { ProviderDriver } from "../../providers/types";
import { jsonbText, normalizeEvent } from "./normalize-event";

const context = { headers: {}, query: new URLSearchParams(), timeZone: "UTC" };

describe("jsonDepthExceeds", () => {
  it("counts nesting in bytes, ignoring brackets inside strings and escaped quotes", () => {
    expect(jsonDepthExceeds(Buffer.from("[[[1]]]"), 3)).toBe(false);
    expect(jsonDepthExceeds(Buffer.from("[[[[1]]]]"), 3)).toBe(true);
    expect(jsonDepthExceeds(Buffer.from('{"a":"[[[[[[","b":{"c":[1]}}'), 3)).toBe(false);
    expect(jsonDepthExceeds(Buffer.from('{"a":"\\"[[[[","b":[[[[1]]]]}'), 3)).toBe(true);
    expect(jsonDepthExceeds(Buffer.from("[".repeat(100_000)), 64)).toBe(true);
  });
});

describe("jsonbText", () => {
  it("is null for what jsonb refuses: a NUL or a lone surrogate in any string or key", () => {
    expect(jsonbText({ a: ["x", { b: "a\u0000b" }] })).toBeNull();
    expect(jsonbText({ "\ud800": 1 })).toBeNull();
    expect(jsonbText(["\udc00"])).toBeNull();
    expect(jsonbText({ a: "🙂 ok" })).toBe('{"a":"🙂 ok"}');
    expect(jsonbText(null)).toBeNull();
  });
});

describe("normalizeEvent", () => {
  it("turns anything a driver throws on signed bytes into a failure with a reason", () => {
    const broken: ProviderDriver = {
      ...stripeDriver,
      parse: () => {
        throw new TypeError("Cannot read properties of undefined");
      },
    };
    const result = normalizeEvent(broken, Buffer.from("{}"), context);
    expect(result).toMatchObject({ ok: false, error: "TypeError: Cannot read properties of undefined", columns: { type: "unparseable" } });
  });

  it("never quotes the body in a JSON error, and keeps its reason storable", () => {
    const result = normalizeEvent(stripeDriver, Buffer.from("\u0000secret 4111111111111111"), context);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatch(/^body is not valid JSON/);
      expect(result.error).not.toMatch(/4111|\u0000/);
    }
  });
});
