// The console's roles. What each may do is lib/auth/permissions.ts; the names live here, below it,
// because the configuration names roles too (OIDC_ROLE_MAP, OIDC_DEFAULT_ROLE) and is checked at start.

/** viewer first: the one role whose permissions every other role has. */
export const ROLES = ["viewer", "support", "finance", "admin"] as const;
export type Role = (typeof ROLES)[number];
