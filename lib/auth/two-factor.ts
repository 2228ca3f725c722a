import { randomBytes } from "node:crypto";
import { Secret, TOTP } from "otpauth";
import { z } from "zod";
import { recordAudit, type Actor } from "../audit/record-audit";
import type { AppConfig } from "../config/env";
import { sha256Hex } from "../crypto/digest";
import { open, seal } from "../crypto/sealed-box";
import type { Pool } from "../db/pool";
import { sqlOn, type PrismaClient } from "../db/prisma";
import { AppError } from "../errors/app-error";
import { admitAttempt, settleAttempt } from "./login-throttle";
import type { Role } from "./permissions";

// Time-based one-time passwords (RFC 6238: SHA-1, 6 digits, 30 s, what every authenticator app
// reads from an otpauth:// URI). The secret is sealed with a key derived from AUTH_SECRET and never
// leaves lib/auth again after enrolment; each accepted code's time step is kept, so a code works once.

const ISSUER = "Webhook Inbox";
const SECRET_PURPOSE = "totp secret";
// One step either side: a phone's clock a little off still signs in.
const WINDOW = 1;
const RECOVERY_CODES = 10;

export type TwoFactorDeps = { prisma: PrismaClient; pool: Pool; config: AppConfig };

export const codeSchema = z
  .string()
  .trim()
  .max(64)
  .transform((value) => value.replace(/[\s-]/g, "").toLowerCase());

function totpFor(secret: string, email: string): TOTP {
  return new TOTP({ issuer: ISSUER, label: email, secret: Secret.fromBase32(secret) });
}

/** AUTH_SECRET, which seals what two-step sign-in keeps (the secrets, a single sign-on's pending second step). */
export function signingKey(config: AppConfig): string {
  if (!config.authSecret) throw new AppError("UNAVAILABLE", "AUTH_SECRET is not set: one-time codes need it");
  return config.authSecret;
}

function openSecret(config: AppConfig, sealed: string | null): string | null {
  return sealed === null ? null : open(signingKey(config), SECRET_PURPOSE, sealed);
}

/** A recovery code as stored: its SHA-256 (the codes are random, 80 bits: no slow hash needed). */
function recoveryHash(code: string): string {
  return sha256Hex("recovery code ", code);
}

/** Does the policy (CONSOLE_REQUIRE_2FA) ask this role for a one-time code? */
export function twoFactorRequired(config: AppConfig, role: Role): boolean {
  return config.requireTwoFactor === "all" || (config.requireTwoFactor === "admin" && role === "admin");
}

/**
 * Starts (or restarts) enrolment: a new secret, sealed and stored but not in use until a code from it
 * is confirmed. Returns the otpauth URI and the secret, to show once.
 */
export async function startEnrolment(deps: TwoFactorDeps, userId: number): Promise<{ uri: string; secret: string }> {
  const user = await deps.prisma.user.findUnique({ where: { id: BigInt(userId) } });
  if (!user) throw new AppError("NOT_FOUND", "no such user");
  if (user.totpEnabledAt) throw new AppError("CONFLICT", "two-step sign-in is already on: turn it off first to enrol another app");
  const secret = new Secret({ size: 20 }).base32;
  await deps.prisma.user.update({
    where: { id: user.id },
    data: { totpSecret: seal(signingKey(deps.config), SECRET_PURPOSE, secret), totpLastStep: null },
  });
  return { uri: totpFor(secret, user.email).toString(), secret };
}

/**
 * Checks a code (or, at sign-in, a recovery code) of a user, throttled like a password (counted before
 * it is checked). A TOTP code is accepted once: its time step must be later than the last accepted
 * one, which one conditional UPDATE moves forward (two requests with one code: one wins). A recovery
 * code is removed as it is used.
 */
async function checkCode(
  deps: TwoFactorDeps,
  user: { id: bigint; email: string; totpSecret: string | null },
  code: string,
  ip: string | null,
  options: { recovery: boolean },
): Promise<"totp" | "recovery" | "wrong" | "rate_limited"> {
  const attempt = await admitAttempt(deps.pool, user.email, ip, deps.config.login, "code");
  if (!attempt) return "rate_limited";
  let outcome: "totp" | "recovery" | "wrong" = "wrong";
  const secret = openSecret(deps.config, user.totpSecret);
  if (secret && /^\d{6}$/.test(code)) {
    const totp = totpFor(secret, user.email);
    const now = Date.now();
    const delta = totp.validate({ token: code, timestamp: now, window: WINDOW });
    if (delta !== null) {
      const step = BigInt(totp.counter({ timestamp: now }) + delta);
      const moved = await deps.prisma.$executeRaw`
        UPDATE users SET totp_last_step = ${step} WHERE id = ${user.id} AND (totp_last_step IS NULL OR totp_last_step < ${step})`;
      if (moved === 1) outcome = "totp";
    }
  } else if (options.recovery && code.length > 0) {
    const used = await deps.prisma.$executeRaw`
      UPDATE users SET recovery_code_hashes = array_remove(recovery_code_hashes, ${recoveryHash(code)})
       WHERE id = ${user.id} AND ${recoveryHash(code)} = ANY (recovery_code_hashes)`;
    if (used === 1) outcome = "recovery";
  }
  await settleAttempt(deps.pool, attempt, outcome !== "wrong");
  return outcome;
}

/** The second step of a sign-in, for a user with two-step sign-in on: a current code or an unused recovery code. */
export async function checkSignInCode(
  deps: TwoFactorDeps,
  user: { id: bigint; email: string; totpSecret: string | null },
  code: string,
  ip: string | null,
): Promise<"totp" | "recovery" | "wrong" | "rate_limited"> {
  return checkCode(deps, user, codeSchema.parse(code), ip, { recovery: true });
}

/**
 * Confirms enrolment with a code from the new secret: two-step sign-in is on from now, and the
 * recovery codes (returned once, stored hashed) replace any earlier ones.
 */
export async function confirmEnrolment(
  deps: TwoFactorDeps,
  userId: number,
  code: string,
  actor: Actor,
): Promise<{ recoveryCodes: string[] }> {
  const user = await deps.prisma.user.findUnique({ where: { id: BigInt(userId) } });
  if (!user?.totpSecret) throw new AppError("CONFLICT", "start the enrolment first");
  if (user.totpEnabledAt) throw new AppError("CONFLICT", "two-step sign-in is already on");
  const checked = await checkCode(deps, user, codeSchema.parse(code), actor.ip ?? null, { recovery: false });
  if (checked === "rate_limited") throw new AppError("RATE_LIMITED", "too many wrong codes: wait a few minutes");
  if (checked !== "totp") throw new AppError("BAD_REQUEST", "that code is not right (or was already used): try the next one");
  const recoveryCodes = Array.from({ length: RECOVERY_CODES }, () => randomBytes(10).toString("hex"));
  await deps.prisma.$transaction(async (tx) => {
    await tx.user.update({
      where: { id: user.id },
      data: { totpEnabledAt: new Date(), recoveryCodeHashes: recoveryCodes.map(recoveryHash) },
    });
    await recordAudit(sqlOn(tx), { actor: actor.name, action: "two_factor_enabled", ip: actor.ip, details: { email: user.email } });
  });
  return { recoveryCodes: recoveryCodes.map((code) => code.replace(/(.{5})(?=.)/g, "$1-")) };
}

/**
 * Turns two-step sign-in off for a user. From the account page it takes a current code (a session
 * alone must not be enough) and is refused where the policy requires it; `user:reset-2fa` (the way
 * back for someone who lost the phone and the recovery codes) passes no code.
 */
export async function disableTwoFactor(
  deps: TwoFactorDeps,
  target: { userId: number } | { email: string },
  actor: Actor,
  code?: string,
): Promise<{ email: string }> {
  const where = "userId" in target ? { id: BigInt(target.userId) } : { email: z.email().max(320).parse(target.email.trim()).toLowerCase() };
  const user = await deps.prisma.user.findUnique({ where });
  if (!user) throw new AppError("NOT_FOUND", "userId" in target ? "no such user" : `no user with e-mail ${where.email}`);
  if (code !== undefined) {
    if (twoFactorRequired(deps.config, user.role as Role))
      throw new AppError("CONFLICT", "two-step sign-in is required for your role here");
    const checked = await checkCode(deps, user, codeSchema.parse(code), actor.ip ?? null, { recovery: true });
    if (checked === "rate_limited") throw new AppError("RATE_LIMITED", "too many wrong codes: wait a few minutes");
    if (checked === "wrong") throw new AppError("BAD_REQUEST", "that code is not right (or was already used)");
  }
  await deps.prisma.$transaction(async (tx) => {
    await tx.user.update({
      where: { id: user.id },
      data: { totpSecret: null, totpEnabledAt: null, totpLastStep: null, recoveryCodeHashes: [] },
    });
    await recordAudit(sqlOn(tx), { actor: actor.name, action: "two_factor_disabled", ip: actor.ip, details: { email: user.email } });
  });
  return { email: user.email };
}

/** How many unused recovery codes a user has left (the account page says so). */
export async function recoveryCodesLeft(prisma: PrismaClient, userId: number): Promise<number> {
  const user = await prisma.user.findUnique({ where: { id: BigInt(userId) }, select: { recoveryCodeHashes: true } });
  return user?.recoveryCodeHashes.length ?? 0;
}
