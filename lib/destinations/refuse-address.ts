import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

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

/** An IPv4 address inside an IPv4-mapped IPv6 one (::ffff:a9fe:a9fe or ::ffff:169.254.169.254). */
function mappedIpv4(address: string): string | null {
  const match = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!match) return null;
  if (match[1]) return match[1];
  const high = parseInt(match[2]!, 16);
  const low = parseInt(match[3]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join(".");
}

export function isRefusedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  if (family === 0) return false;
  const v4 = family === 6 ? mappedIpv4(bare) : bare;
  return v4 ? refused.check(v4, "ipv4") : refused.check(bare, "ipv6");
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
