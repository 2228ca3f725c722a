import { ROLES, type Role } from "../config/console-roles";

/** Who may do what in the console. Declared once; routes, pages and actions name a permission. */
export { ROLES, type Role };

export const PERMISSIONS = [
  // One's own account: password, one-time codes, sessions. The one thing a user with a pending step
  // (a generated password to replace, enrolment the policy requires) may reach.
  "account.own",
  "events.read",
  "payload.unmasked",
  "events.replay",
  "signatures.debug",
  "users.manage",
  "audit.read",
  "payload.restore",
  "alerts.read",
  "payments.reconcile",
  "destinations.manage",
  "privacy.manage",
  // The gateways' accounts: their webhook secrets and API keys (written, never read back).
  "gateways.manage",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

const GRANTS: Record<Role, readonly Permission[]> = {
  // Read everything, but customer data in payloads is masked.
  viewer: ["account.own", "events.read"],
  support: ["account.own", "events.read", "payload.unmasked", "signatures.debug", "payload.restore", "alerts.read"],
  finance: ["account.own", "events.read", "payload.unmasked", "signatures.debug", "events.replay", "payload.restore", "payments.reconcile"],
  admin: [
    "account.own",
    "events.read",
    "payload.unmasked",
    "signatures.debug",
    "events.replay",
    "users.manage",
    "audit.read",
    "payload.restore",
    "alerts.read",
    "payments.reconcile",
    "destinations.manage",
    // A data subject's export and erasure: the whole person unmasked, and an irreversible change.
    "privacy.manage",
    "gateways.manage",
  ],
};

export function can(role: Role, permission: Permission): boolean {
  return GRANTS[role].includes(permission);
}

/** The roles granted `permission`, in ROLES order. */
export function rolesWith(permission: Permission): Role[] {
  return ROLES.filter((role) => can(role, permission));
}

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}
