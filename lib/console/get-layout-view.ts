import { PAGE_ACCESS, type PageRoute } from "../auth/access-table";
import { can, type Role } from "../auth/permissions";
import { describeReadTarget, type ReadRouter, type ReadTarget } from "../db/read-replica";

const NAV: { href: PageRoute; label: string }[] = [
  { href: "/", label: "Overview" },
  { href: "/events", label: "Events" },
  { href: "/payments", label: "Payments" },
  { href: "/replays", label: "Replays" },
  { href: "/signatures", label: "Signatures" },
  { href: "/users", label: "Users" },
  { href: "/audit", label: "Audit log" },
  { href: "/alerts", label: "Alerts" },
  { href: "/reconciliation", label: "Reconciliation" },
  { href: "/destinations", label: "Destinations" },
  { href: "/gateway-accounts", label: "Gateway accounts" },
  { href: "/privacy", label: "Personal data" },
];

export type LayoutView = {
  /** The pages the role may open, in the sidebar's order. */
  links: { href: PageRoute; label: string }[];
  /** Where the lists read from, only when a replica is configured. */
  readTarget: { target: ReadTarget["target"]; sentence: string } | null;
};

/** What every console page's frame shows: the role's pages and where the lists read from. */
export async function getLayoutView(reads: ReadRouter, role: Role): Promise<LayoutView> {
  const target = await reads.target();
  return {
    links: NAV.filter((link) => can(role, PAGE_ACCESS[link.href])),
    readTarget:
      target.target === "primary" && target.reason === "no_replica"
        ? null
        : { target: target.target, sentence: describeReadTarget(target) },
  };
}
