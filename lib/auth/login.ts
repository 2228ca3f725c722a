import { z } from "zod";
import { recordAudit, type Actor } from "../audit/record-audit";
import type { AppConfig } from "../config/env";
import type { Pool } from "../db/pool";
import { sqlOn, type PrismaClient } from "../db/prisma";
import { AppError } from "../errors/app-error";
import { addressGroup } from "../request/client-address";
import { InFlight } from "../request/in-flight";
import { storableText } from "../request/storable-text";
import { admitAttempt, settleAttempt } from "./login-throttle";
import { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from "./password";
import { checkSignInCode, twoFactorRequired } from "./two-factor";
import type { UserAccount } from "./users";
import { findActiveUser } from "./users";

export type LoginDeps = { prisma: PrismaClient; pool: Pool; config: AppConfig };
/** How a sign-in ends once who it is was proved (completeSignIn). */
export type SignInOutcome =
  | { ok: true; user: UserAccount; sessionVersion: number }
  | { ok: false; reason: "rate_limited" }
  | { ok: false; reason: "code_required" }
  | { ok: false; reason: "wrong_code" };
export type LoginResult = SignInOutcome | { ok: false; reason: "invalid" };

// Compared against when the e-mail is unknown, so both paths cost one scrypt.
let decoyHash: Promise<string> | undefined;

// Sign-ins in flight in this process per client address and per account. Past them an attempt is
// refused at once, before it touches the database: a burst from one address then holds no pooled
// connection and no scrypt, and can't starve everyone else's sign-ins. The throttle in the database
// still decides how many are checked; this only keeps the burst from queueing.
const IN_FLIGHT_PER_KEY = 4;
const inFlight = new InFlight(IN_FLIGHT_PER_KEY);

/**
 * Checks credentials, with backoff per account and address and a cap per address (see admitAttempt),
 * and writes every outcome to the audit log, except the refusals of a burst past the in-flight cap
 * (a flood would otherwise write the audit log at its own pace; its counted attempts are there).
 *
 * A user with two-step sign-in on needs a one-time code too: without one the answer is
 * `code_required` (the password was right; the login page then asks for the code and sends both
 * again), and the code is throttled on its own (see checkSignInCode).
 */
export async function authenticate(
  deps: LoginDeps,
  input: { email: string; password: string; code?: string; ip: string | null },
): Promise<LoginResult> {
  // A NUL can't reach the database (it would refuse the query and next-auth would echo its text).
  const email = storableText(input.email.trim().toLowerCase().slice(0, 320));
  const release = inFlight.tryAcquire(`account:${email}`, `address:${input.ip === null ? "unknown" : addressGroup(input.ip)}`);
  if (!release) return { ok: false, reason: "rate_limited" };
  try {
    const attempt = await admitAttempt(deps.pool, email, input.ip, deps.config.login);
    if (!attempt) {
      await recordAudit(deps.pool, { actor: email, action: "login_failed", ip: input.ip, details: { reason: "rate_limited" } });
      return { ok: false, reason: "rate_limited" };
    }
    const user = await deps.prisma.user.findUnique({ where: { email } });
    decoyHash ??= hashPassword("decoy password, never valid");
    const valid = await verifyPassword(input.password, user?.passwordHash ?? (await decoyHash));
    const active = user && valid ? await findActiveUser(deps.prisma, Number(user.id)) : null;
    await settleAttempt(deps.pool, attempt, Boolean(active && user));
    if (!active || !user) {
      const reason = !user ? "unknown_email" : !valid ? "wrong_password" : "disabled";
      await recordAudit(deps.pool, { actor: email, action: "login_failed", ip: input.ip, details: { reason } });
      return { ok: false, reason: "invalid" };
    }
    return await completeSignIn(deps, user, active, { code: input.code, ip: input.ip, method: "password" });
  } finally {
    release();
  }
}

/** How a sign-in proved who it is, before any one-time code. */
export type SignInMethod = "password" | "oidc";

/**
 * The end of every sign-in, once its first step proved who it is: the one-time code where the user
 * has two-step sign-in on (none given: `code_required`, no session), then the audit row. A single
 * sign-on's rows say so (`method: "oidc"`); a password's are as they always were.
 */
export async function completeSignIn(
  deps: LoginDeps,
  user: { id: bigint; email: string; sessionVersion: number; totpSecret: string | null },
  active: UserAccount,
  input: { code: string | undefined; ip: string | null; method: SignInMethod },
): Promise<SignInOutcome> {
  const method = input.method === "oidc" ? { method: input.method } : {};
  let factor: string | undefined;
  if (active.twoFactor) {
    if (!input.code?.trim()) return { ok: false, reason: "code_required" };
    const checked = await checkSignInCode(deps, user, input.code, input.ip);
    if (checked === "rate_limited" || checked === "wrong") {
      await recordAudit(deps.pool, {
        actor: user.email,
        action: "login_failed",
        ip: input.ip,
        details: { reason: checked === "wrong" ? "wrong_code" : "rate_limited", ...method },
      });
      return { ok: false, reason: checked === "wrong" ? "wrong_code" : "rate_limited" };
    }
    factor = checked === "totp" ? "one-time code" : "recovery code";
  }
  const details = { ...method, ...(factor ? { factor } : {}) };
  await recordAudit(deps.pool, {
    actor: user.email,
    action: "login",
    ip: input.ip,
    ...(Object.keys(details).length > 0 ? { details } : {}),
  });
  return { ok: true, user: active, sessionVersion: user.sessionVersion };
}

/**
 * What the console asks of a signed-in user before anything else: a new password when theirs was
 * generated for them, then enrolment when CONSOLE_REQUIRE_2FA covers their role and they have no
 * one-time codes yet. Null: nothing, the console is theirs.
 */
export function pendingStep(config: AppConfig, user: UserAccount): "change_password" | "enrol_two_factor" | null {
  if (user.mustChangePassword) return "change_password";
  if (!user.twoFactor && twoFactorRequired(config, user.role)) return "enrol_two_factor";
  return null;
}

export const changePasswordSchema = z
  .object({
    current: z.string().min(1, "your current password").max(200),
    next: z.string().min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`).max(200),
  })
  .refine((input) => input.current !== input.next, { path: ["next"], message: "must differ from the current password" });

/**
 * A user sets their own password: the current one is checked (throttled like a sign-in, so a left-open
 * session can't be used to guess it), the flag of a generated password clears, and every session ends
 * (this one too: they sign in again with the new password).
 */
export async function changePassword(
  deps: LoginDeps,
  input: z.input<typeof changePasswordSchema>,
  actor: Actor & { userId: number },
): Promise<void> {
  const { current, next } = changePasswordSchema.parse(input);
  const user = await deps.prisma.user.findUnique({ where: { id: BigInt(actor.userId) } });
  if (!user) throw new AppError("NOT_FOUND", "no such user");
  const attempt = await admitAttempt(deps.pool, user.email, actor.ip ?? null, deps.config.login);
  if (!attempt) throw new AppError("RATE_LIMITED", "too many wrong passwords: wait a few minutes");
  const valid = await verifyPassword(current, user.passwordHash);
  await settleAttempt(deps.pool, attempt, valid);
  if (!valid) throw new AppError("BAD_REQUEST", "current: that is not your current password");
  const passwordHash = await hashPassword(next);
  await deps.prisma.$transaction(async (tx) => {
    await tx.user.update({ where: { id: user.id }, data: { passwordHash, mustChangePassword: false, sessionVersion: { increment: 1 } } });
    await recordAudit(sqlOn(tx), { actor: user.email, action: "password_changed", ip: actor.ip });
  });
}
