import { BlockList, isIP } from "node:net";

// DESTINATION_ALLOWED_HOSTS: where outbound pushes may go, when the operator wants to say.

/** A DESTINATION_ALLOWED_HOSTS entry: a host name, `*.` and a domain (its subdomains), an IP address or a CIDR range. */
export function isAllowedHostEntry(entry: string): boolean {
  const [address, bits, extra] = entry.split("/");
  if (isIP(address ?? "") !== 0 && extra === undefined) {
    return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (isIP(address!) === 6 ? 128 : 32));
  }
  return /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(entry);
}

/**
 * May a destination point at this host? With no allow-list, any host (the refused addresses aside);
 * with one, a name must be listed (or be a subdomain of a `*.` entry) and an IP address literal must
 * be in a listed address or range. Names are matched as names: list the names your hosts use.
 */
export function isAllowedHost(hostname: string, allowList: readonly string[]): boolean {
  if (allowList.length === 0) return true;
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const family = isIP(host);
  if (family !== 0) {
    const ranges = new BlockList();
    for (const entry of allowList) {
      const [address, bits] = entry.split("/");
      const entryFamily = isIP(address ?? "");
      if (entryFamily === 0) continue;
      const type = entryFamily === 6 ? "ipv6" : "ipv4";
      if (bits === undefined) ranges.addAddress(address!, type);
      else ranges.addSubnet(address!, Number(bits), type);
    }
    return ranges.check(host, family === 6 ? "ipv6" : "ipv4");
  }
  return allowList.some((entry) => {
    const pattern = entry.toLowerCase();
    return pattern.startsWith("*.") ? host.endsWith(pattern.slice(1)) : host === pattern;
  });
}
