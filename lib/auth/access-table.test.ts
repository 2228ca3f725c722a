import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ACTION_ACCESS, PAGE_ACCESS, ROUTE_ACCESS } from "./access-table";
import { can, PERMISSIONS, ROLES, type Permission, type Role } from "./permissions";

// Who can do what, spelled out role by role: a change to the grants shows up here as a diff.
const EXPECTED: Record<Permission, readonly Role[]> = {
  "account.own": ["viewer", "support", "finance", "admin"],
  "events.read": ["viewer", "support", "finance", "admin"],
  "payload.unmasked": ["support", "finance", "admin"],
  "signatures.debug": ["support", "finance", "admin"],
  "events.replay": ["finance", "admin"],
  "users.manage": ["admin"],
  "audit.read": ["admin"],
  "payload.restore": ["support", "finance", "admin"],
  "alerts.read": ["support", "admin"],
  "payments.reconcile": ["finance", "admin"],
  "destinations.manage": ["admin"],
  "privacy.manage": ["admin"],
  "gateways.manage": ["admin"],
};

const entries = [
  ...Object.entries(PAGE_ACCESS).map(([name, permission]) => ["page", name, permission] as const),
  ...Object.entries(ACTION_ACCESS).map(([name, permission]) => ["action", name, permission] as const),
  ...Object.entries(ROUTE_ACCESS).map(([name, permission]) => ["route", name, permission] as const),
];

describe("the permission table", () => {
  it("grants each permission to exactly the expected roles", () => {
    for (const permission of PERMISSIONS) {
      expect(
        ROLES.filter((role) => can(role, permission)),
        permission,
      ).toEqual(EXPECTED[permission]);
    }
  });

  it.each(entries.flatMap(([kind, name, permission]) => ROLES.map((role) => [kind, name, role, permission] as const)))(
    "%s %s as %s",
    (_kind, _name, role, permission) => {
      expect(can(role, permission)).toBe(EXPECTED[permission].includes(role));
    },
  );

  it("lets only finance and admin replay, and only admin manage users", () => {
    const allowed = (permission: Permission) => ROLES.filter((role) => can(role, permission));
    expect(allowed(ACTION_ACCESS.replayEvent)).toEqual(["finance", "admin"]);
    expect(allowed(ACTION_ACCESS.startBulkReplay)).toEqual(["finance", "admin"]);
    expect(allowed(ACTION_ACCESS.createUser)).toEqual(["admin"]);
    expect(allowed(PAGE_ACCESS["/events"])).toEqual([...ROLES]);
  });
});

// The table only protects what uses it: every console page, server action and console route must
// check its own entry (the proxy only redirects signed-out visitors).
const APP = join(process.cwd(), "app");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

function routeOf(path: string, root: string): string {
  const segments = relative(root, path)
    .split("/")
    .slice(0, -1)
    .filter((segment) => !segment.startsWith("("));
  return `/${segments.join("/")}`;
}

describe("every entry point checks its permission", () => {
  const all = files(APP);

  it("console pages call requirePageAccess with their own route", () => {
    const pages = all.filter((path) => path.includes("(console)") && path.endsWith("page.tsx"));
    expect(pages.length).toBeGreaterThan(5);
    const seen = pages.map((path) => {
      const route = routeOf(path, APP);
      expect(readFileSync(path, "utf8"), path).toContain(`requirePageAccess("${route}")`);
      return route;
    });
    expect(seen.sort()).toEqual(Object.keys(PAGE_ACCESS).sort());
  });

  it("server actions run through runAction under their own name", () => {
    const modules = all.filter((path) => /^["']use server["'];/.test(readFileSync(path, "utf8")));
    const names = modules.flatMap((path) => {
      const source = readFileSync(path, "utf8");
      return [...source.matchAll(/export async function (\w+)\(/g)].map(([, name]) => {
        expect(source, `${path} ${name}`).toContain(`runAction("${name}"`);
        return name!;
      });
    });
    expect(names.sort()).toEqual(Object.keys(ACTION_ACCESS).sort());
  });

  it("console API routes check their ROUTE_ACCESS entry; the public ones are the ingest, health, host, API-description and auth endpoints", () => {
    const routes = all.filter((path) => path.startsWith(join(APP, "api")) && path.endsWith("route.ts"));
    const publicRoutes = [
      "/api/webhooks/[provider]",
      "/api/webhooks/[provider]/[account]",
      "/api/health",
      "/api/auth/[...nextauth]",
      "/api/payments",
      "/api/payments/[provider]/[chargeId]",
      "/api/payment-changes",
      "/api/privacy/erasures",
      "/api/privacy/erasures/[id]",
      "/api/gateway-accounts",
      "/api/gateway-accounts/[provider]/[name]",
      "/api/metrics",
      "/api/openapi.json",
    ];
    const checked = routes
      .map((path) => ({ path, route: routeOf(path, APP), source: readFileSync(path, "utf8") }))
      .filter(({ route }) => !publicRoutes.includes(route));
    for (const { path, route, source } of checked) {
      expect(source, path).toContain(`requireRouteAccess("GET ${route}")`);
    }
    expect(checked.map(({ route }) => `GET ${route}`).sort()).toEqual(Object.keys(ROUTE_ACCESS).sort());
    // The host API is token-protected instead.
    for (const route of routes.filter((path) => /\/api\/(payments|payment-changes|privacy|gateway-accounts)\//.test(path))) {
      expect(readFileSync(route, "utf8")).toContain("requireApiToken(request)");
    }
    expect(readFileSync(join(APP, "api/metrics/route.ts"), "utf8")).toContain("checkMetricsAccess(");
  });
});
