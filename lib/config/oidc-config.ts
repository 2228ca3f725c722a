import { z } from "zod";
import { ROLES, type Role } from "./console-roles";

// Single sign-on for console users over OpenID Connect (docs/console.md#single-sign-on): off unless
// the issuer, the client id and its secret are all set. How a sign-in is matched, mapped and refused
// is lib/auth/oidc-sign-in.ts.

/** One pair of OIDC_ROLE_MAP: a value of the role claim, and the console role it gives. */
export type RoleMapping = { value: string; role: Role };

const roleMap = z
  .string()
  .optional()
  .transform((text, context): RoleMapping[] => {
    const pairs = (text ?? "")
      .split(",")
      .map((pair) => pair.trim())
      .filter((pair) => pair.length > 0);
    return pairs.flatMap((pair) => {
      // The last colon separates: a group may be a URN (urn:example:group:admins:admin).
      const at = pair.lastIndexOf(":");
      const value = pair.slice(0, Math.max(at, 0)).trim();
      const role = pair.slice(at + 1).trim();
      if (at <= 0 || !value || !(ROLES as readonly string[]).includes(role)) {
        context.addIssue({ code: "custom", message: `"${pair}" is not value:role (role one of ${ROLES.join(", ")})` });
        return [];
      }
      return [{ value, role: role as Role }];
    });
  });

export const oidcVariables = {
  OIDC_ISSUER: z
    .url({ protocol: /^https?$/ })
    .refine((url) => !/[?#]/.test(url), "must be the issuer's URL, without a query or fragment")
    .optional(),
  OIDC_CLIENT_ID: z.string().max(255).optional(),
  OIDC_CLIENT_SECRET: z.string().max(1024).optional(),
  OIDC_NAME: z.string().trim().min(1).max(40).default("SSO"),
  OIDC_SCOPES: z
    .string()
    .default("openid email profile")
    .refine((scopes) => scopes.split(/\s+/).includes("openid"), "must include openid"),
  OIDC_ROLE_CLAIM: z.string().max(200).optional(),
  OIDC_ROLE_MAP: roleMap,
  OIDC_DEFAULT_ROLE: z.enum(ROLES).optional(),
  OIDC_CREATE_USERS: z.enum(["off", "on"]).default("off"),
};

type OidcVariables = z.output<z.ZodObject<typeof oidcVariables>>;

const TURNED_ON_BY = ["OIDC_ISSUER", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET"] as const;
// Settings that mean nothing without the three above: set alone, they are a half-done configuration.
const SETTINGS = ["OIDC_ROLE_CLAIM", "OIDC_DEFAULT_ROLE"] as const;

/** Problems of a combination of the variables (each of them valid on its own). */
export function checkOidcVariables(b: OidcVariables, context: z.RefinementCtx): void {
  const set = TURNED_ON_BY.filter((name) => b[name] !== undefined);
  const extras = [
    ...SETTINGS.filter((name) => b[name] !== undefined),
    ...(b.OIDC_ROLE_MAP.length > 0 ? ["OIDC_ROLE_MAP"] : []),
    ...(b.OIDC_CREATE_USERS === "on" ? ["OIDC_CREATE_USERS"] : []),
  ];
  if ((set.length > 0 || extras.length > 0) && set.length < TURNED_ON_BY.length) {
    const missing = TURNED_ON_BY.filter((name) => b[name] === undefined);
    context.addIssue({
      code: "custom",
      path: [missing[0]!],
      message: `single sign-on needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET together (missing: ${missing.join(", ")})`,
    });
  }
  if ((b.OIDC_ROLE_CLAIM === undefined) !== (b.OIDC_ROLE_MAP.length === 0)) {
    context.addIssue({
      code: "custom",
      path: [b.OIDC_ROLE_CLAIM === undefined ? "OIDC_ROLE_CLAIM" : "OIDC_ROLE_MAP"],
      message: "set OIDC_ROLE_CLAIM and OIDC_ROLE_MAP together (the claim holds the values the map gives roles to)",
    });
  }
}

/** Single sign-on as the code reads it; null when it is off. */
export function oidcSettings(b: OidcVariables) {
  if (!b.OIDC_ISSUER || !b.OIDC_CLIENT_ID || !b.OIDC_CLIENT_SECRET) return null;
  return {
    /** The issuer identifier, exactly as the ID token's `iss` must read. */
    issuer: b.OIDC_ISSUER,
    clientId: b.OIDC_CLIENT_ID,
    clientSecret: b.OIDC_CLIENT_SECRET,
    /** What the login page's button says after "Sign in with". */
    name: b.OIDC_NAME,
    scopes: b.OIDC_SCOPES,
    /**
     * Set: the identity provider decides each user's role at every sign-in (the first pair of
     * roleMap whose value the claim holds, else defaultRole, else the sign-in is refused).
     */
    roleClaim: b.OIDC_ROLE_CLAIM ?? null,
    roleMap: b.OIDC_ROLE_MAP,
    defaultRole: b.OIDC_DEFAULT_ROLE ?? null,
    /** Users the console doesn't know are created at their first sign-in (else refused). */
    createUsers: b.OIDC_CREATE_USERS === "on",
  };
}

export type OidcSettings = NonNullable<ReturnType<typeof oidcSettings>>;

/** Production refuses an issuer reached over plain http: its keys and tokens would travel in the clear. */
export function oidcProductionProblems(env: Record<string, string | undefined>): string[] {
  return env.OIDC_ISSUER?.startsWith("http://") ? ["  OIDC_ISSUER: must be an https URL in production"] : [];
}
