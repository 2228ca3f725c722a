import { describe, expect, it } from "vitest";
import { isProxyEntry, normalizeAddress, resolveClientAddress, trustedProxySet } from "./client-address";

describe("resolveClientAddress", () => {
  const none = trustedProxySet([]);
  const proxies = trustedProxySet(["10.0.0.0/8", "192.168.1.5", "fd00::/8"]);

  it.each([
    // [peer, X-Forwarded-For, trusted, expected]
    ["203.0.113.9", null, none, "203.0.113.9"],
    ["203.0.113.9", "1.1.1.1", none, "203.0.113.9"], // a client's own header is ignored
    ["::ffff:127.0.0.1", "1.1.1.1, 2.2.2.2", none, "127.0.0.1"],
    ["10.1.2.3", "198.51.100.7", proxies, "198.51.100.7"], // one trusted proxy
    ["10.1.2.3", "6.6.6.6, 198.51.100.7", proxies, "198.51.100.7"], // the client's forged left part is skipped
    ["10.1.2.3", "6.6.6.6, 198.51.100.7, 192.168.1.5", proxies, "198.51.100.7"], // two trusted hops
    ["10.1.2.3", "10.9.9.9", proxies, "10.9.9.9"], // all trusted: the left-most
    ["10.1.2.3", "not-an-ip, 198.51.100.7", proxies, "198.51.100.7"],
    ["10.1.2.3", "garbage", proxies, "10.1.2.3"], // a trusted proxy that wrote nonsense: the proxy itself
    ["fd00::1", "[2001:db8::5]:443", proxies, "2001:db8::5"],
    ["10.1.2.3", "198.51.100.7:5555", proxies, "198.51.100.7"],
    ["203.0.113.9", "10.1.2.3", proxies, "203.0.113.9"], // an untrusted peer claiming to come via a proxy
    [null, "1.1.1.1", proxies, null],
  ])("peer %s, X-Forwarded-For %s -> %s", (peer, forwarded, trusted, expected) => {
    expect(resolveClientAddress(peer, forwarded, trusted)).toBe(expected);
  });

  it("normalizes addresses and validates TRUSTED_PROXIES entries", () => {
    expect(normalizeAddress("::FFFF:1.2.3.4")).toBe("1.2.3.4");
    expect(normalizeAddress("[::1]:80")).toBe("::1");
    expect(normalizeAddress("example.com")).toBeNull();
    expect(["10.0.0.1", "10.0.0.0/8", "::1", "fd00::/8"].every(isProxyEntry)).toBe(true);
    expect(["10.0.0.0/33", "example.com", "10.0.0.0/8/1", "1.2.3.4/x"].some(isProxyEntry)).toBe(false);
  });
});
