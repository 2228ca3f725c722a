import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { ipv6Groups } from "../request/client-address";
import { isAllowedHost } from "../request/host-allow-list";

// Destinations may be internal hosts (the host application usually is), but never the link-local
// range or a cloud's metadata service: a console user must not be able to make the worker read
// instance credentials. Checked on the address the socket connects to (after DNS), so a name that
// resolves to one of them, or starts to, is refused too.
const refused = new BlockList();
refused.addSubnet("169.254.0.0", 16, "ipv4"); // link-local; AWS, GCP, Azure, OpenStack metadata at 169.254.169.254
refused.addSubnet("0.0.0.0", 8, "ipv4"); // "this host": Linux connects it to the local machine
refused.addAddress("100.100.100.200", "ipv4"); // Alibaba Cloud metadata
refused.addSubnet("fe80::", 10, "ipv6"); // link-local
refused.addAddress("fd00:ec2::254", "ipv6"); // AWS metadata over IPv6
refused.addAddress("::", "ipv6");

/**
 * The IPv4 address an IPv6 one stands for, in every form a host or a NAT64 gateway may route to it:
 * mapped (::ffff:a.b.c.d), translated (::ffff:0:a.b.c.d), the deprecated compatible form (::a.b.c.d,
 * but not ::1) and the NAT64 well-known prefix (64:ff9b::a.b.c.d), hex or dotted. 6to4 (2002::/16)
 * is not one: it reaches the address on the relay's network, not ours.
 */
function embeddedIpv4(address: string): string | null {
  const groups = ipv6Groups(address);
  const zero = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  const [, , , , fifth, sixth, high, low] = groups as [number, number, number, number, number, number, number, number];
  const embeds =
    (zero(0, 5) && sixth === 0xffff) ||
    (zero(0, 4) && fifth === 0xffff && sixth === 0) ||
    (zero(0, 6) && high !== 0) ||
    (groups[0] === 0x64 && groups[1] === 0xff9b && zero(2, 6));
  return embeds ? [high >> 8, high & 255, low >> 8, low & 255].join(".") : null;
}

export function isRefusedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  if (family === 0) return false;
  const v4 = family === 6 ? embeddedIpv4(bare) : bare;
  return refused.check(bare, family === 6 ? "ipv6" : "ipv4") || (v4 !== null && refused.check(v4, "ipv4"));
}

/** Why a destination URL may not be used, or null. */
export function destinationUrlProblem(url: string, allowList: readonly string[]): string | null {
  const { hostname } = new URL(url);
  if (isRefusedAddress(hostname)) return new RefusedAddressError(hostname).message;
  if (!isAllowedHost(hostname, allowList)) return `${hostname} is not in DESTINATION_ALLOWED_HOSTS`;
  return null;
}

export class RefusedAddressError extends Error {
  override name = "RefusedAddressError";
  readonly code = "EREFUSEDADDRESS";
  constructor(host: string) {
    super(`${host} is a link-local or cloud metadata address; destinations may not point there`);
  }
}

/** dns.lookup, refusing any answer that is a refused address (what the socket would connect to). */
export const refusingLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "", 0);
    if (addresses.length === 0 || addresses.some(({ address }) => isRefusedAddress(address))) {
      return callback(new RefusedAddressError(hostname), "", 0);
    }
    // net asks for all addresses when it races families (autoSelectFamily), one otherwise.
    if (options.all) return (callback as unknown as (error: null, all: LookupAddress[]) => void)(null, addresses);
    callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};
