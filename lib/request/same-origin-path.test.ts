import { describe, expect, it } from "vitest";
import { sameOriginPath } from "./same-origin-path";

const OWN = "https://inbox.example.com";

describe("sameOriginPath", () => {
  it.each([
    "//evil.example/x",
    "///evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "/\\/evil.example",
    "https://evil.example/",
    "http:evil.example",
    "HTTPS://evil.example",
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "/\t/evil.example",
    "/\n/evil.example",
    " //evil.example",
    "%2F%2Fevil.example",
    "/%2F/evil.example",
    "/%5Cevil.example",
    "/%2f%2fevil.example",
    "%5C%5Cevil.example",
    "https://inbox.example.com.evil.example/",
    "https://inbox.example.com@evil.example/",
    "http://inbox.example.com/", // same host, other scheme: another origin
    "evil.example",
    "",
    "/%E0%A4%A", // malformed percent-encoding
    "/" + "a".repeat(2001),
    // Dot segments the parser resolves after the input checks, leaving "//host".
    "/.//evil.example/phish",
    "/..//evil.example",
    "/%2e//evil.example",
    "/%2E%2E//evil.example",
    "/a/..//evil.example",
    "/a/%2e%2e//evil.example",
    "https://inbox.example.com/.//evil.example",
  ])("refuses %j", (hostile) => {
    expect(sameOriginPath(hostile, OWN)).toBe("/");
  });

  it.each([
    ["/", "/"],
    ["/events?status=failed#top", "/events?status=failed#top"],
    ["/payments/42", "/payments/42"],
    ["/events/../users", "/users"],
    ["https://inbox.example.com/audit?before=10", "/audit?before=10"],
    ["/events?q=a%20b", "/events?q=a%20b"],
  ])("keeps %j as %j", (input, expected) => {
    expect(sameOriginPath(input, OWN)).toBe(expected);
  });

  it("refuses non-strings and absolute URLs when the own origin is unknown", () => {
    expect(sameOriginPath(undefined)).toBe("/");
    expect(sameOriginPath(["/events"])).toBe("/");
    expect(sameOriginPath("https://inbox.example.com/events")).toBe("/");
  });
});
