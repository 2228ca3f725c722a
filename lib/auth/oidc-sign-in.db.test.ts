import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { loadConfig } from "../config/env";
import { createTestApp, type TestApp } from "../testing/test-app";
import type { LoginDeps } from "./login";
import { finishOidcSignIn, signInWithOidc, ticketEmail } from "./oidc-sign-in";
import { confirmEnrolment, startEnrolment } from "./two-factor";
import { createUser, findActiveUser, updateUser } from "./users";

// Who a verified single sign-on is here, on a database of this file's own: the claims are what
// next-auth's OpenID Connect client hands over once the ID token checked out (its signature, issuer,
// audience and nonce are refused before this code runs: e2e/console-sso.e2e.test.ts).

const ISSUER = "https://id.example.com/realms/staff";
const SSO = { OIDC_ISSUER: ISSUER, OIDC_CLIENT_ID: "inbox", OIDC_CLIENT_SECRET: "a client secret from the idp" };
const MAPPED = { ...SSO, OIDC_ROLE_CLAIM: "groups", OIDC_ROLE_MAP: "console-admins:admin,finance-team:finance,staff:viewer" };
const IP = "10.0.0.7";

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp("oidc_sign_in", { ...SSO, AUTH_SECRET: "a test session key of 32 characters or more" });
});
afterAll(async () => app.close());
beforeEach(async () => {
  await app.pool.query("TRUNCATE users, audit_log, login_attempts");
});

/** The app with other OIDC_* settings. */
const withEnv = (env: Record<string, string>): LoginDeps => ({ ...app, config: loadConfig({ ...app.env, ...env }) });
const claims = (sub: string, more: Record<string, unknown> = {}) => ({ iss: ISSUER, sub, email_verified: true, ...more });
const signIn = (verified: unknown, deps: LoginDeps = app) => signInWithOidc(deps, verified, IP);

async function audit() {
  const { rows } = await app.pool.query(
    "SELECT actor, action, details->>'method' AS method, details->>'reason' AS reason FROM audit_log ORDER BY id",
  );
  return rows.map((row) => [row.actor, row.action, row.method ?? "", row.reason ?? ""].join(" ").trim());
}

async function linkOf(email: string) {
  const { rows } = await app.pool.query("SELECT oidc_issuer, oidc_subject FROM users WHERE email = $1", [email]);
  return rows[0];
}

describe("matching a sign-in to a console user", () => {
  it("links a user by verified e-mail at the first sign-in, then knows them by subject whatever their e-mail becomes", async () => {
    await createUser(app.prisma, { email: "ana@example.com", role: "support", password: "a long enough password" }, "test");
    const first = await signIn(claims("idp-ana", { email: "Ana@Example.com" }));
    expect(first).toMatchObject({ ok: true, user: { email: "ana@example.com", role: "support" } });
    expect(await linkOf("ana@example.com")).toEqual({ oidc_issuer: ISSUER, oidc_subject: "idp-ana" });
    // Her address changes at the provider (unverified even): still her.
    expect(await signIn(claims("idp-ana", { email: "ana.new@example.com", email_verified: false }))).toMatchObject({
      ok: true,
      user: { email: "ana@example.com" },
    });
    expect(await audit()).toEqual([
      "test user_created",
      "ana@example.com sso_linked",
      "ana@example.com login oidc",
      "ana@example.com login oidc",
    ]);
  });

  it("refuses a missing or unverified e-mail while no identity is linked; a string 'true' counts as verified", async () => {
    await createUser(app.prisma, { email: "bo@example.com", role: "viewer", password: "a long enough password" }, "test");
    expect(await signIn(claims("idp-bo", { email: "bo@example.com", email_verified: false }))).toEqual({
      ok: false,
      reason: "refused",
      refusal: "unverified_email",
    });
    expect(await signIn(claims("idp-bo", { email: "bo@example.com", email_verified: undefined }))).toMatchObject({
      refusal: "unverified_email",
    });
    expect(await signIn(claims("idp-bo"))).toMatchObject({ refusal: "unverified_email" });
    expect(await linkOf("bo@example.com")).toEqual({ oidc_issuer: null, oidc_subject: null });
    expect(await signIn(claims("idp-bo", { email: "bo@example.com", email_verified: "true" }))).toMatchObject({ ok: true });
  });

  it("never moves a linked user to another identity with the same e-mail, nor takes another issuer's token", async () => {
    await createUser(app.prisma, { email: "cy@example.com", role: "admin", password: "a long enough password" }, "test");
    expect(await signIn(claims("idp-cy", { email: "cy@example.com" }))).toMatchObject({ ok: true });
    // A second account at the provider that now carries her address (verified there) is not her.
    expect(await signIn(claims("idp-impostor", { email: "cy@example.com" }))).toMatchObject({ refusal: "linked_elsewhere" });
    expect(await signIn({ ...claims("idp-cy", { email: "cy@example.com" }), iss: "https://other.example.com" })).toMatchObject({
      refusal: "wrong_issuer",
    });
    expect(await signIn({ iss: ISSUER, email: "cy@example.com" })).toMatchObject({ refusal: "bad_claims" });
    expect(await linkOf("cy@example.com")).toEqual({ oidc_issuer: ISSUER, oidc_subject: "idp-cy" });
    expect((await audit()).slice(-3)).toEqual([
      "cy@example.com login_failed oidc linked_elsewhere",
      "cy@example.com login_failed oidc wrong_issuer",
      "single sign-on login_failed oidc bad_claims",
    ]);
  });

  it("refuses a disabled user, linked or not", async () => {
    await createUser(app.prisma, { email: "admin@example.com", role: "admin", password: "a long enough password" }, "test");
    const { user } = await createUser(app.prisma, { email: "di@example.com", role: "viewer", password: "a long enough password" }, "test");
    expect(await signIn(claims("idp-di", { email: "di@example.com" }))).toMatchObject({ ok: true });
    await updateUser(app.prisma, { id: user.id, disabled: true }, "admin@example.com");
    expect(await signIn(claims("idp-di", { email: "di@example.com" }))).toMatchObject({ refusal: "disabled" });
    const { user: other } = await createUser(app.prisma, { email: "ed@example.com", role: "viewer" }, "test");
    await updateUser(app.prisma, { id: other.id, disabled: true }, "admin@example.com");
    expect(await signIn(claims("idp-ed", { email: "ed@example.com" }))).toMatchObject({ refusal: "disabled" });
    expect(await linkOf("ed@example.com")).toEqual({ oidc_issuer: null, oidc_subject: null });
  });

  it("refuses someone the console doesn't know, unless OIDC_CREATE_USERS is on: then a viewer, linked, with no password to replace", async () => {
    expect(await signIn(claims("idp-new", { email: "new@example.com", name: "New Person" }))).toMatchObject({ refusal: "unknown_user" });
    expect(await app.prisma.user.count()).toBe(0);
    const creating = withEnv({ OIDC_CREATE_USERS: "on" });
    const created = await signIn(claims("idp-new", { email: "new@example.com", name: "New Person" }), creating);
    expect(created).toMatchObject({
      ok: true,
      user: { email: "new@example.com", name: "New Person", role: "viewer", mustChangePassword: false },
    });
    expect(await linkOf("new@example.com")).toEqual({ oidc_issuer: ISSUER, oidc_subject: "idp-new" });
    // OIDC_DEFAULT_ROLE names the role of those created.
    const supportDefault = withEnv({ OIDC_CREATE_USERS: "on", OIDC_DEFAULT_ROLE: "support" });
    expect(await signIn(claims("idp-sam", { email: "sam@example.com" }), supportDefault)).toMatchObject({ user: { role: "support" } });
    // Unverified e-mail: not created either.
    expect(await signIn(claims("idp-eve", { email: "eve@example.com", email_verified: false }), creating)).toMatchObject({
      refusal: "unverified_email",
    });
    expect((await audit()).filter((line) => line.includes("user_created"))).toEqual([
      "single sign-on user_created",
      "single sign-on user_created",
    ]);
  });
});

describe("roles from the identity provider", () => {
  it("gives the first mapped role the claim holds, writes it to the user (ending sessions of the old role), and refuses when none maps", async () => {
    const mapped = withEnv(MAPPED);
    await createUser(app.prisma, { email: "admin@example.com", role: "admin", password: "a long enough password" }, "test");
    const { user } = await createUser(app.prisma, { email: "fi@example.com", role: "viewer", password: "a long enough password" }, "test");
    const before = (await app.prisma.user.findUniqueOrThrow({ where: { id: BigInt(user.id) } })).sessionVersion;
    const result = await signIn(claims("idp-fi", { email: "fi@example.com", groups: ["staff", "finance-team"] }), mapped);
    // finance-team comes before staff in the map.
    expect(result).toMatchObject({ ok: true, user: { role: "finance" } });
    expect(result.ok && result.sessionVersion).toBe(before + 1);
    expect(await findActiveUser(app.prisma, user.id, before)).toBeNull();
    expect(await audit()).toContain("single sign-on user_updated");

    // Out of every mapped group: refused, and the role stays what it was.
    expect(await signIn(claims("idp-fi", { email: "fi@example.com", groups: ["contractors"] }), mapped)).toMatchObject({
      refusal: "no_role",
    });
    expect(await signIn(claims("idp-fi", { email: "fi@example.com" }), mapped)).toMatchObject({ refusal: "no_role" });
    // ...unless a default role is set.
    const withDefault = withEnv({ ...MAPPED, OIDC_DEFAULT_ROLE: "viewer" });
    expect(await signIn(claims("idp-fi", { email: "fi@example.com", groups: "contractors" }), withDefault)).toMatchObject({
      user: { role: "viewer" },
    });
  });

  it("reads a dot path or a namespaced claim, and keeps the console's role when no claim is configured", async () => {
    await createUser(app.prisma, { email: "kc@example.com", role: "viewer", password: "a long enough password" }, "test");
    const keycloak = withEnv({ ...SSO, OIDC_ROLE_CLAIM: "realm_access.roles", OIDC_ROLE_MAP: "inbox-support:support" });
    expect(
      await signIn(claims("idp-kc", { email: "kc@example.com", realm_access: { roles: ["offline_access", "inbox-support"] } }), keycloak),
    ).toMatchObject({ user: { role: "support" } });
    const auth0 = withEnv({ ...SSO, OIDC_ROLE_CLAIM: "https://inbox.example.com/roles", OIDC_ROLE_MAP: "finance:finance" });
    expect(await signIn(claims("idp-kc", { "https://inbox.example.com/roles": ["finance"] }), auth0)).toMatchObject({
      user: { role: "finance" },
    });
    // No role claim configured: the role set in the console stands, whatever groups the token carries.
    expect(await signIn(claims("idp-kc", { groups: ["console-admins"] }))).toMatchObject({ user: { role: "finance" } });
  });

  it("refuses a sign-in whose role would demote the last active admin", async () => {
    await createUser(app.prisma, { email: "solo@example.com", role: "admin", password: "a long enough password" }, "test");
    const mapped = withEnv(MAPPED);
    expect(await signIn(claims("idp-solo", { email: "solo@example.com", groups: ["staff"] }), mapped)).toMatchObject({
      refusal: "last_admin",
    });
    expect((await app.prisma.user.findUniqueOrThrow({ where: { email: "solo@example.com" } })).role).toBe("admin");
    expect(await signIn(claims("idp-solo", { email: "solo@example.com", groups: ["console-admins"] }), mapped)).toMatchObject({ ok: true });
  });
});

describe("two-step sign-in after single sign-on", () => {
  const STEP_MS = 30_000;
  const codeAt = (secret: string, at: number) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: at });

  async function enrolled(email: string) {
    const { user } = await createUser(app.prisma, { email, role: "viewer", password: "a long enough password" }, "test");
    const { secret } = await startEnrolment(app, user.id);
    // Enrolled a step ago: the current step's code is unused.
    await confirmEnrolment(app, user.id, codeAt(secret, Date.now() - STEP_MS), { name: email });
    return { user, secret };
  }

  it("asks a user with one-time codes for one: no session before it, a ticket that carries the first step for five minutes", async () => {
    const { secret } = await enrolled("tf@example.com");
    const first = await signIn(claims("idp-tf", { email: "tf@example.com" }));
    expect(first).toMatchObject({ ok: false, reason: "code_required", email: "tf@example.com" });
    if (first.ok || first.reason !== "code_required") throw new Error("expected a ticket");
    expect(await ticketEmail(app, first.ticket)).toBe("tf@example.com");

    expect(await finishOidcSignIn(app, { ticket: first.ticket, code: "000000", ip: IP })).toEqual({ ok: false, reason: "wrong_code" });
    expect(await finishOidcSignIn(app, { ticket: `${first.ticket.slice(0, -2)}AA`, code: codeAt(secret, Date.now()), ip: IP })).toEqual({
      ok: false,
      reason: "expired",
    });
    const done = await finishOidcSignIn(app, { ticket: first.ticket, code: codeAt(secret, Date.now()), ip: IP });
    expect(done).toMatchObject({ ok: true, user: { email: "tf@example.com" } });
    const { rows } = await app.pool.query(
      "SELECT action, details->>'method' AS method, details->>'reason' AS reason, details->>'factor' AS factor FROM audit_log WHERE actor = $1 AND action LIKE 'login%' ORDER BY id",
      ["tf@example.com"],
    );
    expect(rows).toEqual([
      { action: "login_failed", method: "oidc", reason: "wrong_code", factor: null },
      { action: "login", method: "oidc", reason: null, factor: "one-time code" },
    ]);

    vi.useFakeTimers({ now: Date.now() + 5 * 60_000 + 1000, toFake: ["Date"] });
    try {
      expect(await ticketEmail(app, first.ticket)).toBeNull();
      expect(await finishOidcSignIn(app, { ticket: first.ticket, code: codeAt(secret, Date.now()), ip: IP })).toEqual({
        ok: false,
        reason: "expired",
      });
    } finally {
      vi.useRealTimers();
    }
  });

  it("ends a ticket when its session version moved on meanwhile (disabled and enabled again)", async () => {
    await createUser(app.prisma, { email: "admin@example.com", role: "admin", password: "a long enough password" }, "test");
    const { user, secret } = await enrolled("gone@example.com");
    const first = await signIn(claims("idp-gone", { email: "gone@example.com" }));
    if (first.ok || first.reason !== "code_required") throw new Error("expected a ticket");
    await updateUser(app.prisma, { id: user.id, disabled: true }, "admin@example.com");
    await updateUser(app.prisma, { id: user.id, disabled: false }, "admin@example.com");
    expect(await finishOidcSignIn(app, { ticket: first.ticket, code: codeAt(secret, Date.now()), ip: IP })).toEqual({
      ok: false,
      reason: "expired",
    });
  });
});
