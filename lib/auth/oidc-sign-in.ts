import { z } from "zod";
import { asActor, recordAudit, type Actor } from "../audit/record-audit";
import type { OidcSettings } from "../config/oidc-config";
import { open, seal } from "../crypto/sealed-box";
import { sqlOn, type PrismaClient } from "../db/prisma";
import { AppError } from "../errors/app-error";
import { completeSignIn, type LoginDeps } from "./login";
import type { Role } from "./permissions";
import { signingKey } from "./two-factor";
import { createUser, findActiveUser, updateUser, type UserAccount } from "./users";

// Single sign-on over OpenID Connect: who a verified sign-in at the identity provider is here, and
// whether they may in. The protocol (discovery, PKCE, state, nonce, the ID token's signature,
// issuer, audience and expiry) is next-auth's OpenID Connect client (openid-client), set up in
// app/_server/oidc-provider.ts; this file receives the claims it verified.

// Every refusal is audited with one of these; the person at the login page reads one sentence.
export type OidcRefusal =
  "bad_claims" | "wrong_issuer" | "unverified_email" | "linked_elsewhere" | "unknown_user" | "disabled" | "no_role" | "last_admin";

export type OidcSignInResult =
  | { ok: true; user: UserAccount; sessionVersion: number }
  | { ok: false; reason: "code_required"; ticket: string; email: string }
  | { ok: false; reason: "refused"; refusal: OidcRefusal }
  | { ok: false; reason: "rate_limited" | "wrong_code" };

// Who the sign-in is, as the identity provider said. email_verified is a string in some providers'
// tokens (Amazon Cognito's "true").
const claimsSchema = z.looseObject({
  iss: z.string(),
  sub: z.string().min(1).max(255),
  email: z.string().trim().toLowerCase().max(320).optional(),
  email_verified: z.union([z.boolean(), z.enum(["true", "false"])]).optional(),
  name: z.string().max(200).optional(),
});

// The one-time code of a user with two-step sign-in on is asked after the identity provider's
// sign-in, on the login page, within this long.
const TICKET_SECONDS = 5 * 60;
const TICKET_PURPOSE = "oidc second step";
const ticketSchema = z.object({ user: z.number().int().positive(), version: z.number().int(), expires: z.number() });

/** Audit rows of these sign-ins are written by this name where no user acts (a user created, a role the provider changed). */
const ACTOR = "single sign-on";

function settings(deps: LoginDeps): OidcSettings {
  if (!deps.config.oidc) throw new AppError("NOT_FOUND", "single sign-on is not configured (OIDC_ISSUER)");
  return deps.config.oidc;
}

/** The values of the role claim: a name (namespaced claims hold dots and slashes), else a dot path. */
function claimValues(claims: Record<string, unknown>, claim: string): string[] {
  let value: unknown = Object.hasOwn(claims, claim) ? claims[claim] : claims;
  if (value === claims)
    for (const part of claim.split(".")) value = value && typeof value === "object" ? (value as Record<string, unknown>)[part] : undefined;
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/**
 * The role the identity provider gives: undefined when it doesn't decide roles (no OIDC_ROLE_CLAIM:
 * the console's own role stands), null when it decides and gives none.
 */
export function providerRole(oidc: OidcSettings, claims: Record<string, unknown>): Role | null | undefined {
  if (!oidc.roleClaim) return undefined;
  const values = new Set(claimValues(claims, oidc.roleClaim));
  return oidc.roleMap.find((mapping) => values.has(mapping.value))?.role ?? oidc.defaultRole;
}

/**
 * A sign-in the identity provider verified: the console user it is, by the identity linked at their
 * first single sign-on, else by verified e-mail (then linked, so a later change of e-mail at either
 * end can't move the sign-in to someone else), else created when OIDC_CREATE_USERS is on. Refused:
 * a token of another issuer, an unverified or missing e-mail with no link, a user linked to another
 * identity, an unknown user, a disabled one, and (with a role claim) no role. With a role claim the
 * provider's role is written to the user, as an admin's change would be (other sessions end).
 *
 * Then as a password sign-in goes on: a user with two-step sign-in on gives a one-time code (a
 * sealed ticket carries the first step to the login page: no session exists before the code), and
 * the audit log has the outcome, `method: "oidc"`.
 */
export async function signInWithOidc(deps: LoginDeps, verifiedClaims: unknown, ip: string | null): Promise<OidcSignInResult> {
  const oidc = settings(deps);
  const parsed = claimsSchema.safeParse(verifiedClaims);
  const refuse = async (refusal: OidcRefusal, actor: string): Promise<OidcSignInResult> => {
    await recordAudit(deps.pool, { actor, action: "login_failed", ip, details: { method: "oidc", reason: refusal } });
    return { ok: false, reason: "refused", refusal };
  };
  if (!parsed.success) return refuse("bad_claims", ACTOR);
  const claims = parsed.data;
  const actor = claims.email ?? `${claims.iss} ${claims.sub}`;
  // openid-client checked the token against the issuer the discovery document named; this is the one configured.
  if (claims.iss !== oidc.issuer) return refuse("wrong_issuer", actor);

  const identity = { issuer: claims.iss, subject: claims.sub };
  let user = await deps.prisma.user.findUnique({
    where: { oidcIssuer_oidcSubject: { oidcIssuer: identity.issuer, oidcSubject: identity.subject } },
  });
  const linked = user !== null;
  if (!user) {
    const verified = claims.email_verified === true || claims.email_verified === "true";
    if (!claims.email || !verified) return refuse("unverified_email", actor);
    user = await deps.prisma.user.findUnique({ where: { email: claims.email } });
    if (user?.oidcSubject) return refuse("linked_elsewhere", actor);
    if (!user && !oidc.createUsers) return refuse("unknown_user", actor);
  }
  if (user?.disabledAt) return refuse("disabled", user.email);
  const role = providerRole(oidc, claims);
  if (role === null) return refuse("no_role", user?.email ?? actor);

  if (!user) {
    const created = await createUser(
      deps.prisma,
      { email: claims.email!, role: role ?? oidc.defaultRole ?? "viewer", name: claims.name },
      { name: ACTOR, ip },
      { mustChangePassword: false, oidcIdentity: identity },
    );
    user = await deps.prisma.user.findUniqueOrThrow({ where: { id: BigInt(created.user.id) } });
  } else if (!linked) {
    const { id: userId, email } = user;
    const claimed = await deps.prisma.$transaction(async (tx) => {
      // Only while unlinked: two first sign-ins of one user with two identities at once link one.
      const { count } = await tx.user.updateMany({
        where: { id: userId, oidcSubject: null },
        data: { oidcIssuer: identity.issuer, oidcSubject: identity.subject },
      });
      if (count === 1) await recordAudit(sqlOn(tx), { actor: email, action: "sso_linked", ip, details: identity });
      return count === 1;
    });
    if (!claimed) return refuse("linked_elsewhere", user.email);
  }
  if (role && role !== user.role) {
    try {
      await updateUser(deps.prisma, { id: Number(user.id), role }, { name: ACTOR, ip });
    } catch (error) {
      if (error instanceof AppError && error.code === "CONFLICT") return refuse("last_admin", user.email);
      throw error;
    }
  }
  // Read again: a role written above moved the session version on.
  const signedIn = await activeUser(deps, Number(user.id));
  if (!signedIn) return refuse("disabled", user.email);
  const result = await completeSignIn(deps, signedIn.row, signedIn.active, { code: undefined, ip, method: "oidc" });
  if (result.ok || result.reason !== "code_required") return result;
  const expires = Math.floor(Date.now() / 1000) + TICKET_SECONDS;
  const ticket = seal(
    signingKey(deps.config),
    TICKET_PURPOSE,
    JSON.stringify({ user: Number(user.id), version: signedIn.row.sessionVersion, expires }),
  );
  return { ok: false, reason: "code_required", ticket, email: signedIn.row.email };
}

/**
 * The one-time code after a single sign-on, with the ticket its first step handed out. An expired or
 * forged ticket, or one of a user since disabled, signed out or given another role: start again.
 */
export async function finishOidcSignIn(
  deps: LoginDeps,
  input: { ticket: string; code: string; ip: string | null },
): Promise<OidcSignInResult | { ok: false; reason: "expired" }> {
  const ticket = readTicket(deps, input.ticket);
  const signedIn = ticket ? await activeUser(deps, ticket.user, ticket.version) : null;
  if (!signedIn) return { ok: false, reason: "expired" };
  if (!input.code.trim()) return { ok: false, reason: "wrong_code" };
  return (await completeSignIn(deps, signedIn.row, signedIn.active, {
    code: input.code,
    ip: input.ip,
    method: "oidc",
  })) as OidcSignInResult;
}

/** The e-mail a ticket is for, while it is good (the login page shows whose code it asks for). */
export async function ticketEmail(deps: LoginDeps, ticket: string): Promise<string | null> {
  const read = readTicket(deps, ticket);
  return read ? ((await activeUser(deps, read.user, read.version))?.row.email ?? null) : null;
}

async function activeUser(deps: LoginDeps, id: number, sessionVersion?: number) {
  const row = await deps.prisma.user.findUnique({ where: { id: BigInt(id) } });
  const active = row ? await findActiveUser(deps.prisma, id, sessionVersion) : null;
  return row && active ? { row, active } : null;
}

function readTicket(deps: LoginDeps, ticket: string): z.infer<typeof ticketSchema> | null {
  const text = open(signingKey(deps.config), TICKET_PURPOSE, ticket);
  // Sealed by us: its text is our JSON, or it didn't open.
  const parsed = text === null ? null : ticketSchema.safeParse(JSON.parse(text));
  return parsed?.success && parsed.data.expires > Date.now() / 1000 ? parsed.data : null;
}

/**
 * Forgets the identity a user signed in with (their account at the provider was replaced, or the
 * wrong one was linked): their next single sign-on links again by verified e-mail. Their sessions
 * end, audited.
 */
export async function unlinkOidcIdentity(
  prisma: PrismaClient,
  email: string,
  by: string | Actor,
): Promise<{ email: string; subject: string }> {
  const address = z.email().max(320).parse(email.trim()).toLowerCase();
  const actor = asActor(by);
  return prisma.$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { email: address } });
    if (!user) throw new AppError("NOT_FOUND", `no user with e-mail ${address}`);
    if (!user.oidcSubject) throw new AppError("CONFLICT", `${address} has no single sign-on identity linked`);
    await tx.user.update({
      where: { id: user.id },
      data: { oidcIssuer: null, oidcSubject: null, sessionVersion: { increment: 1 } },
    });
    const details = { email: address, issuer: user.oidcIssuer, subject: user.oidcSubject };
    await recordAudit(sqlOn(tx), { actor: actor.name, action: "sso_unlinked", ip: actor.ip, details });
    return { email: address, subject: user.oidcSubject };
  });
}
