import { Secret, TOTP } from "otpauth";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createTestApp, type TestApp } from "../testing/test-app";
import { authenticate, changePassword, pendingStep } from "./login";
import { confirmEnrolment, disableTwoFactor, startEnrolment } from "./two-factor";
import { createUser, endOtherSessions, findActiveUser, resetPassword, sessionStillValid } from "./users";

// Console access on a database of this file's own: one-time codes (enrolment, sign-in, reuse,
// recovery codes, their throttle), the forced change of a generated password, and ending the other
// sessions. Codes are made with the same library an authenticator app's algorithm is checked against.

let app: TestApp;
const PASSWORD = "a long enough password";
const STEP_MS = 30_000;

beforeAll(async () => {
  app = await createTestApp("two_factor", {
    LOGIN_MAX_FAILURES: "3",
    LOGIN_WINDOW_MINUTES: "15",
    AUTH_SECRET: "a test session key of 32 characters or more",
  });
});
afterAll(async () => app.close());
beforeEach(async () => {
  await app.pool.query("TRUNCATE users, audit_log, login_attempts");
  // Each test's codes are counted from one instant at the start of a step: "the current step" and
  // "the next one" stay what they were when the test began, however slowly a loaded machine runs it.
  vi.useFakeTimers({ toFake: ["Date"], now: Math.floor(Date.now() / STEP_MS) * STEP_MS + 1 });
});
afterEach(() => {
  vi.useRealTimers();
});

const codeAt = (secret: string, offsetSteps = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + offsetSteps * STEP_MS });

async function enrolled(email: string, role: "viewer" | "admin" = "viewer") {
  const { user } = await createUser(app.prisma, { email, role, password: PASSWORD }, "test");
  const { secret, uri } = await startEnrolment(app, user.id);
  const { recoveryCodes } = await confirmEnrolment(app, user.id, codeAt(secret), { name: email, ip: "10.0.0.1" });
  return { user, secret, uri, recoveryCodes };
}

const login = (email: string, code?: string, ip = "10.0.0.1", password = PASSWORD) => authenticate(app, { email, password, code, ip });

describe("enrolment", () => {
  it("shows the secret once as an otpauth URI, stores it sealed, and turns on only after a right code", async () => {
    const { user } = await createUser(app.prisma, { email: "ana@example.com", role: "support", password: PASSWORD }, "test");
    const { uri, secret } = await startEnrolment(app, user.id);
    expect(uri).toMatch(/^otpauth:\/\/totp\/Webhook%20Inbox:ana%40example\.com\?/);
    expect(new URL(uri).searchParams.get("secret")).toBe(secret);
    const { rows } = await app.pool.query("SELECT totp_secret, totp_enabled_at FROM users WHERE id = $1", [user.id]);
    expect(rows[0].totp_secret).toMatch(/^v1\./);
    expect(rows[0].totp_secret).not.toContain(secret);
    expect(rows[0].totp_enabled_at).toBeNull();
    // Not on yet: the password alone signs in.
    expect((await login("ana@example.com")).ok).toBe(true);

    const actor = { name: "ana@example.com", ip: "10.0.0.1" };
    await expect(confirmEnrolment(app, user.id, "000000" === codeAt(secret) ? "111111" : "000000", actor)).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    const { recoveryCodes } = await confirmEnrolment(app, user.id, codeAt(secret), actor);
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    const stored = await app.pool.query("SELECT recovery_code_hashes::text AS hashes FROM users WHERE id = $1", [user.id]);
    for (const code of recoveryCodes) expect(stored.rows[0].hashes).not.toContain(code.replace(/-/g, ""));
    expect((await findActiveUser(app.prisma, user.id))?.twoFactor).toBe(true);
    // A second enrolment over a working one is refused: turn it off first.
    await expect(startEnrolment(app, user.id)).rejects.toMatchObject({ code: "CONFLICT" });
    const audit = await app.pool.query("SELECT action FROM audit_log WHERE action = 'two_factor_enabled'");
    expect(audit.rowCount).toBe(1);
  });
});

describe("signing in with a one-time code", () => {
  it("asks for the code after a right password, refuses a wrong one, and takes a code once", async () => {
    const { secret } = await enrolled("bo@example.com");
    // A wrong password is still just wrong: no hint that a code would follow.
    expect(await login("bo@example.com", undefined, "10.0.0.1", "wrong password")).toEqual({ ok: false, reason: "invalid" });
    expect(await login("bo@example.com")).toEqual({ ok: false, reason: "code_required" });
    const wrong = codeAt(secret) === "123456" ? "654321" : "123456";
    expect(await login("bo@example.com", wrong)).toEqual({ ok: false, reason: "wrong_code" });
    // The enrolment used the current step: its code can't sign in again, the next step's can, once.
    expect(await login("bo@example.com", codeAt(secret))).toEqual({ ok: false, reason: "wrong_code" });
    expect(await login("bo@example.com", codeAt(secret, 1))).toMatchObject({ ok: true, user: { email: "bo@example.com" } });
    expect(await login("bo@example.com", codeAt(secret, 1))).toEqual({ ok: false, reason: "wrong_code" });
    const { rows } = await app.pool.query(
      "SELECT details->>'reason' AS reason, details->>'factor' AS factor FROM audit_log WHERE actor = $1 AND action IN ('login', 'login_failed') ORDER BY id",
      ["bo@example.com"],
    );
    expect(rows.map((row) => row.reason ?? row.factor)).toEqual([
      "wrong_password",
      "wrong_code",
      "wrong_code",
      "one-time code",
      "wrong_code",
    ]);
  });

  it("lets a code be used by one of two simultaneous sign-ins only", async () => {
    const { secret } = await enrolled("cy@example.com");
    const code = codeAt(secret, 1);
    const results = await Promise.all([login("cy@example.com", code, "10.0.0.1"), login("cy@example.com", code, "10.0.0.2")]);
    expect(results.filter((result) => result.ok)).toHaveLength(1);
  });

  it("takes each recovery code once, in any case and with or without dashes", async () => {
    const { recoveryCodes } = await enrolled("di@example.com");
    expect((await login("di@example.com", recoveryCodes[0]!.toUpperCase())).ok).toBe(true);
    expect(await login("di@example.com", recoveryCodes[0])).toEqual({ ok: false, reason: "wrong_code" });
    expect((await login("di@example.com", recoveryCodes[1]!.replace(/-/g, ""))).ok).toBe(true);
    const { rows } = await app.pool.query("SELECT cardinality(recovery_code_hashes) AS left FROM users WHERE email = 'di@example.com'");
    expect(rows[0].left).toBe(8);
  });

  it("throttles codes like passwords, counted apart: a right password doesn't clear wrong codes", async () => {
    const { secret } = await enrolled("ed@example.com");
    const wrong = (offset: number) => String((Number(codeAt(secret, offset)) + 1) % 1_000_000).padStart(6, "0");
    for (let i = 0; i < 3; i++) expect(await login("ed@example.com", wrong(i), "10.6.6.6")).toEqual({ ok: false, reason: "wrong_code" });
    // The password is right (and counted as such), but the address waits for its next code.
    expect(await login("ed@example.com", codeAt(secret, 1), "10.6.6.6")).toEqual({ ok: false, reason: "rate_limited" });
    // The owner elsewhere is not locked out.
    expect((await login("ed@example.com", codeAt(secret, 1), "10.0.0.1")).ok).toBe(true);
    const { rows } = await app.pool.query("SELECT factor, count(*)::int AS n FROM login_attempts GROUP BY factor ORDER BY factor");
    expect(rows).toEqual([
      { factor: "code", n: 5 },
      { factor: "password", n: 5 },
    ]);
  });

  it("turns off with a current code, not where the policy requires it; user:reset-2fa needs none", async () => {
    const { user, secret } = await enrolled("fa@example.com", "admin");
    const strict = { ...app, config: { ...app.config, requireTwoFactor: "admin" as const } };
    const actor = { name: "fa@example.com", ip: "10.0.0.1" };
    await expect(disableTwoFactor(strict, { userId: user.id }, actor, codeAt(secret, 1))).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(disableTwoFactor(app, { userId: user.id }, actor, "999999x")).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await disableTwoFactor(app, { userId: user.id }, actor, codeAt(secret, 1));
    expect((await login("fa@example.com")).ok).toBe(true);
    const again = await enrolled("gi@example.com");
    await disableTwoFactor(app, { email: "GI@example.com" }, { name: "cli:root" });
    expect((await findActiveUser(app.prisma, again.user.id))?.twoFactor).toBe(false);
    const { rows } = await app.pool.query(
      "SELECT totp_secret, cardinality(recovery_code_hashes) AS codes FROM users WHERE email = 'gi@example.com'",
    );
    expect(rows[0]).toEqual({ totp_secret: null, codes: 0 });
  });
});

describe("pending steps", () => {
  it("holds a user with a generated password until they set their own, then ends every session", async () => {
    const { user, password } = await createUser(app.prisma, { email: "ha@example.com", role: "finance" }, "admin@example.com");
    expect(pendingStep(app.config, user)).toBe("change_password");
    const signedIn = await login("ha@example.com", undefined, "10.0.0.1", password);
    if (!signedIn.ok) throw new Error("sign-in failed");
    const actor = { name: user.email, userId: user.id, ip: "10.0.0.1" };
    await expect(changePassword(app, { current: "not it", next: "my own long password" }, actor)).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    await expect(changePassword(app, { current: password, next: password }, actor)).rejects.toThrow(/must differ/);
    await changePassword(app, { current: password, next: "my own long password" }, actor);
    const now = (await findActiveUser(app.prisma, user.id))!;
    expect(pendingStep(app.config, now)).toBeNull();
    const token = { userId: user.id, sessionVersion: signedIn.sessionVersion, signedInAt: Math.floor(Date.now() / 1000) };
    expect(await sessionStillValid(app.prisma, token, 3600)).toBe(false);
    expect((await login("ha@example.com", undefined, "10.0.0.1", "my own long password")).ok).toBe(true);
    // An admin's reset hands out a generated password again: held again.
    await resetPassword(app.prisma, "ha@example.com", "cli:root");
    expect(pendingStep(app.config, (await findActiveUser(app.prisma, user.id))!)).toBe("change_password");
  });

  it("sends users the policy covers to enrolment: admins under admin, everyone under all", async () => {
    const admin = (await createUser(app.prisma, { email: "ia@example.com", role: "admin", password: PASSWORD }, "test")).user;
    const viewer = (await createUser(app.prisma, { email: "jo@example.com", role: "viewer", password: PASSWORD }, "test")).user;
    const policy = (requireTwoFactor: "off" | "admin" | "all") => ({ ...app.config, requireTwoFactor });
    expect([admin, viewer].map((user) => pendingStep(policy("off"), user))).toEqual([null, null]);
    expect([admin, viewer].map((user) => pendingStep(policy("admin"), user))).toEqual(["enrol_two_factor", null]);
    expect([admin, viewer].map((user) => pendingStep(policy("all"), user))).toEqual(["enrol_two_factor", "enrol_two_factor"]);
    const { user: enrolledAdmin } = await enrolled("ka@example.com", "admin");
    expect(pendingStep(policy("all"), (await findActiveUser(app.prisma, enrolledAdmin.id))!)).toBeNull();
  });
});

describe("signing out the other sessions", () => {
  it("moves the version on for the asking session only; an ended session can't use it to come back", async () => {
    const { user } = await createUser(app.prisma, { email: "lu@example.com", role: "viewer", password: PASSWORD }, "test");
    const first = await login("lu@example.com");
    const second = await login("lu@example.com");
    if (!first.ok || !second.ok) throw new Error("sign-in failed");
    expect(first.sessionVersion).toBe(second.sessionVersion);
    const signedInAt = Math.floor(Date.now() / 1000);
    const next = await endOtherSessions(app.prisma, user.id, first.sessionVersion, "10.0.0.1");
    expect(next).toBe(first.sessionVersion + 1);
    expect(await sessionStillValid(app.prisma, { userId: user.id, sessionVersion: next, signedInAt }, 3600)).toBe(true);
    expect(await sessionStillValid(app.prisma, { userId: user.id, sessionVersion: second.sessionVersion, signedInAt }, 3600)).toBe(false);
    // The other (now ended) session asks too: refused, and the asking session stays good.
    expect(await endOtherSessions(app.prisma, user.id, second.sessionVersion, null)).toBeNull();
    expect(await sessionStillValid(app.prisma, { userId: user.id, sessionVersion: next, signedInAt }, 3600)).toBe(true);
    const { rows } = await app.pool.query("SELECT actor, action, ip FROM audit_log WHERE action = 'other_sessions_ended'");
    expect(rows).toEqual([{ actor: "lu@example.com", action: "other_sessions_ended", ip: "10.0.0.1" }]);
  });
});
