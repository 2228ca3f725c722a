import { recordAudit } from "../audit/record-audit";
import type { AppConfig } from "../config/env";
import type { Pool } from "../db/pool";
import type { PrismaClient } from "../db/prisma";
import { storableText } from "../db/storable-text";
import { hashPassword, verifyPassword } from "./password";
import type { UserView } from "./users";
import { findActiveUser } from "./users";

export type LoginDeps = { prisma: PrismaClient; pool: Pool; config: AppConfig };
export type LoginResult = { ok: true; user: UserView } | { ok: false; reason: "invalid" | "rate_limited" };

// Compared against when the e-mail is unknown, so both paths cost one scrypt.
let decoyHash: Promise<string> | undefined;

/** Failed logins in the window, for this account and for this IP. */
async function recentFailures(pool: Pool, email: string, ip: string | null, windowMinutes: number) {
  const { rows } = await pool.query<{ account: number; address: number }>(
    `SELECT count(*) FILTER (WHERE actor = $1)::int AS account,
            count(*) FILTER (WHERE $2::text IS NOT NULL AND ip = $2)::int AS address
       FROM audit_log
      WHERE action = 'login_failed' AND at > now() - make_interval(mins => $3)`,
    [email, ip, windowMinutes],
  );
  return rows[0]!;
}

/**
 * Checks credentials, rate-limited per account and per IP (an IP gets a few accounts' worth of
 * tries), and writes every outcome to the audit log.
 */
export async function authenticate(
  deps: LoginDeps,
  input: { email: string; password: string; ip: string | null },
): Promise<LoginResult> {
  // A NUL can't reach the database (it would refuse the query and next-auth would echo its text).
  const email = storableText(input.email.trim().toLowerCase().slice(0, 320));
  const { maxFailures, windowMinutes } = deps.config.login;
  const failures = await recentFailures(deps.pool, email, input.ip, windowMinutes);
  if (failures.account >= maxFailures || failures.address >= maxFailures * 4) {
    await recordAudit(deps.pool, { actor: email, action: "login_failed", ip: input.ip, details: { reason: "rate_limited" } });
    return { ok: false, reason: "rate_limited" };
  }
  const user = await deps.prisma.user.findUnique({ where: { email } });
  decoyHash ??= hashPassword("decoy password, never valid");
  const valid = await verifyPassword(input.password, user?.passwordHash ?? (await decoyHash));
  const active = user && valid ? await findActiveUser(deps.prisma, Number(user.id)) : null;
  if (!active) {
    const reason = !user ? "unknown_email" : !valid ? "wrong_password" : "disabled";
    await recordAudit(deps.pool, { actor: email, action: "login_failed", ip: input.ip, details: { reason } });
    return { ok: false, reason: "invalid" };
  }
  await recordAudit(deps.pool, { actor: email, action: "login", ip: input.ip });
  return { ok: true, user: active };
}
