import { recordAudit } from "../audit/record-audit";
import type { AppConfig } from "../config/env";
import type { Pool } from "../db/pool";
import type { PrismaClient } from "../db/prisma";
import { storableText } from "../request/storable-text";
import { hashPassword, verifyPassword } from "./password";
import type { UserView } from "./users";
import { findActiveUser } from "./users";

export type LoginDeps = { prisma: PrismaClient; pool: Pool; config: AppConfig };
export type LoginResult =
  | { ok: true; user: UserView; sessionVersion: number }
  | { ok: false; reason: "invalid" | "rate_limited" };

// Compared against when the e-mail is unknown, so both paths cost one scrypt.
let decoyHash: Promise<string> | undefined;

// Failures of one account from one address count until it signs in there, or for a day.
const PAIR_MEMORY_HOURS = 24;

/**
 * Is this account locked for this address? After `maxFailures` wrong passwords from one address the
 * account must wait there, doubling with each further failure (backoffSeconds, x2, x4..., capped at the
 * window). Only that address waits: someone guessing from elsewhere can't lock the owner out. And is
 * the address itself spraying (many failures over any accounts in the window)?
 */
async function loginBlocked(pool: Pool, email: string, ip: string | null, login: AppConfig["login"]): Promise<boolean> {
  const { rows } = await pool.query<{ pair: number; lockedUntil: Date | null; now: Date; address: number }>(
    `WITH since AS (
       SELECT GREATEST(now() - make_interval(hours => $4::int),
                       COALESCE((SELECT max(at) FROM audit_log
                                  WHERE actor = $1 AND action = 'login' AND ip IS NOT DISTINCT FROM $2), '-infinity')) AS at
     ), pair AS (
       SELECT count(*)::int AS n, max(a.at) AS last
         FROM audit_log a, since
        WHERE a.actor = $1 AND a.action = 'login_failed' AND a.ip IS NOT DISTINCT FROM $2 AND a.at > since.at
          AND a.details->>'reason' IS DISTINCT FROM 'rate_limited'
     )
     SELECT pair.n AS pair,
            CASE WHEN pair.n >= $5::int THEN pair.last + make_interval(secs => LEAST($6::int * power(2, pair.n - $5::int), $3::int * 60)) END AS "lockedUntil",
            now() AS now,
            (SELECT count(*)::int FROM audit_log
              WHERE action = 'login_failed' AND $2::text IS NOT NULL AND ip = $2 AND at > now() - make_interval(mins => $3::int)) AS address
       FROM pair`,
    [email, ip, login.windowMinutes, PAIR_MEMORY_HOURS, login.maxFailures, login.backoffSeconds],
  );
  const row = rows[0]!;
  const pairLocked = row.lockedUntil !== null && row.lockedUntil > row.now;
  return pairLocked || row.address >= login.maxFailures * 4;
}

/**
 * Checks credentials, with backoff per account and address and a cap per address (see loginBlocked),
 * and writes every outcome to the audit log.
 */
export async function authenticate(
  deps: LoginDeps,
  input: { email: string; password: string; ip: string | null },
): Promise<LoginResult> {
  // A NUL can't reach the database (it would refuse the query and next-auth would echo its text).
  const email = storableText(input.email.trim().toLowerCase().slice(0, 320));
  if (await loginBlocked(deps.pool, email, input.ip, deps.config.login)) {
    await recordAudit(deps.pool, { actor: email, action: "login_failed", ip: input.ip, details: { reason: "rate_limited" } });
    return { ok: false, reason: "rate_limited" };
  }
  const user = await deps.prisma.user.findUnique({ where: { email } });
  decoyHash ??= hashPassword("decoy password, never valid");
  const valid = await verifyPassword(input.password, user?.passwordHash ?? (await decoyHash));
  const active = user && valid ? await findActiveUser(deps.prisma, Number(user.id)) : null;
  if (!active || !user) {
    const reason = !user ? "unknown_email" : !valid ? "wrong_password" : "disabled";
    await recordAudit(deps.pool, { actor: email, action: "login_failed", ip: input.ip, details: { reason } });
    return { ok: false, reason: "invalid" };
  }
  await recordAudit(deps.pool, { actor: email, action: "login", ip: input.ip });
  return { ok: true, user: active, sessionVersion: user.sessionVersion };
}
