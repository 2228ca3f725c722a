import { BlockList, isIP } from "node:net";

// Next's route handlers and server actions never see the socket: Next copies the peer address into
// X-Forwarded-For only when the client sent none, so a client can write its own. Our web server
// (worker/web-server.ts) overwrites PEER_ADDRESS_HEADER with the socket address on every request and
// marks this process as served by it; without that mark (plain `next start`) the header may come from
// anyone and the address is unknown.

export const PEER_ADDRESS_HEADER = "x-webhook-inbox-peer";
const SERVED_BY_OUR_SERVER = Symbol.for("webhook-inbox.peer-address-header");

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

/** Called by our web server before Next handles anything: the peer header is ours from now on. */
export function trustPeerAddressHeader(): void {
  (globalThis as Record<symbol, unknown>)[SERVED_BY_OUR_SERVER] = true;
}

function peerHeaderTrusted(): boolean {
  return (globalThis as Record<symbol, unknown>)[SERVED_BY_OUR_SERVER] === true;
}

/** An address as written in a header ("1.2.3.4", "1.2.3.4:80", "[::1]:80", "::ffff:1.2.3.4"), or null. */
export function normalizeAddress(value: string | undefined | null): string | null {
  let address = (value ?? "").trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) address = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(":"));
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) address = mapped[1]!;
  return isIP(address) ? address.toLowerCase() : null;
}

/** TRUSTED_PROXIES entries (addresses or CIDR ranges) as a set to test addresses against. */
export function trustedProxySet(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split("/");
    const normalized = normalizeAddress(address);
    if (!normalized) throw new Error(`not an IP address or CIDR range: ${entry}`);
    const type = isIP(normalized) === 6 ? "ipv6" : "ipv4";
    if (bits === undefined) list.addAddress(normalized, type);
    else list.addSubnet(normalized, Number(bits), type);
  }
  return list;
}

/** Is this address (as a socket reports it) in the set? */
export function isTrustedAddress(trusted: BlockList, address: string): boolean {
  const normalized = normalizeAddress(address);
  return normalized !== null && trusted.check(normalized, isIP(normalized) === 6 ? "ipv6" : "ipv4");
}

/** Is this a valid TRUSTED_PROXIES entry? */
export function isProxyEntry(entry: string): boolean {
  const [address, bits, extra] = entry.split("/");
  const normalized = normalizeAddress(address);
  if (!normalized || extra !== undefined) return false;
  if (bits === undefined) return true;
  const max = isIP(normalized) === 6 ? 128 : 32;
  return /^\d+$/.test(bits) && Number(bits) <= max;
}

/**
 * The client's address: the socket peer, or, while the hop we got the request from is a trusted
 * proxy, the address that proxy appended to X-Forwarded-For (read right to left). The right-most
 * untrusted address is the client; anything left of it was written by the client and is ignored.
 */
export function resolveClientAddress(peer: string | null, forwardedFor: string | null, trusted: BlockList): string | null {
  let address = normalizeAddress(peer);
  if (!address) return null;
  const hops = (forwardedFor ?? "").split(",").filter((hop) => hop.trim() !== "");
  const isTrusted = (value: string) => isTrustedAddress(trusted, value);
  for (let index = hops.length - 1; index >= 0 && isTrusted(address); index--) {
    const hop = normalizeAddress(hops[index]);
    if (!hop) break;
    address = hop;
  }
  return address;
}

/** The client address of a request to our web server (null when the server isn't ours: unknown). */
export function clientAddress(headers: HeaderSource, trusted: BlockList): string | null {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : ([headers[name]].flat()[0] ?? null));
  if (!peerHeaderTrusted()) return null;
  const forwarded =
    headers instanceof Headers ? headers.get("x-forwarded-for") : [headers["x-forwarded-for"]].flat().filter(Boolean).join(",");
  return resolveClientAddress(get(PEER_ADDRESS_HEADER), forwarded || null, trusted);
}

/** The 8 groups of an IPv6 address (an IPv4 tail as two of them). */
export function ipv6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * The client an address stands for when counting what one client does: an IPv4 address itself, an
 * IPv6 address's /64 (one host usually holds the whole prefix, so counting single addresses would
 * give it 2^64 of them).
 */
export function addressGroup(address: string): string {
  const normalized = normalizeAddress(address) ?? address;
  if (isIP(normalized) !== 6) return normalized;
  return `${ipv6Groups(normalized)
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}
