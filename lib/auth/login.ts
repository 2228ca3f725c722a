import { recordAudit } from "../audit/record-audit";
import type { AppConfig } from "../config/env";
import type { Pool } from "../db/pool";
import type { PrismaClient } from "../db/prisma";
import { addressGroup } from "../request/client-address";
import { InFlight } from "../request/in-flight";
import { storableText } from "../request/storable-text";
import { admitAttempt, settleAttempt } from "./login-throttle";
import { hashPassword, verifyPassword } from "./password";
import type { UserAccount } from "./users";
import { findActiveUser } from "./users";

export type LoginDeps = { prisma: PrismaClient; pool: Pool; config: AppConfig };
export type LoginResult = { ok: true; user: UserAccount; sessionVersion: number } | { ok: false; reason: "invalid" | "rate_limited" };

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
 */
export async function authenticate(deps: LoginDeps, input: { email: string; password: string; ip: string | null }): Promise<LoginResult> {
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
    await recordAudit(deps.pool, { actor: email, action: "login", ip: input.ip });
    return { ok: true, user: active, sessionVersion: user.sessionVersion };
  } finally {
    release();
  }
}
