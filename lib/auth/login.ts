import { recordAudit } from "../audit/record-audit";
import type { AppConfig } from "../config/env";
import type { Pool } from "../db/pool";
import type { PrismaClient } from "../db/prisma";
import { storableText } from "../request/storable-text";
import { hashPassword, verifyPassword } from "./password";
import type { UserAccount } from "./users";
import { findActiveUser } from "./users";

export type LoginDeps = { prisma: PrismaClient; pool: Pool; config: AppConfig };
export type LoginResult = { ok: true; user: UserAccount; sessionVersion: number } | { ok: false; reason: "invalid" | "rate_limited" };

// Compared against when the e-mail is unknown, so both paths cost one scrypt.
let decoyHash: Promise<string> | undefined;

// Failures of one account from one address count until it signs in there, or for a day.
const PAIR_MEMORY_HOURS = 24;

// Past this many failures of one account from all addresses together (the pair's threshold times
// this), the account itself backs off, wherever the next attempt comes from.
const ACCOUNT_FACTOR = 3;

/**
 * Is this account locked for this address? After `maxFailures` wrong passwords from one address the
 * account must wait there, doubling with each further failure (backoffSeconds, x2, x4..., capped at the
 * window). Only that address waits: someone guessing from elsewhere can't lock the owner out, until
 * the account's failures from everywhere reach maxFailures x ACCOUNT_FACTOR: then it backs off for
 * every address the same way (a guesser with many addresses is slowed; the owner waits at most the
 * window). And is the address itself spraying (many failures over any accounts in the window)? An
 * IPv6 address counts as its /64: one host usually holds the whole prefix.
 */
async function loginBlocked(pool: Pool, email: string, ip: string | null, login: AppConfig["login"]): Promise<boolean> {
  const { rows } = await pool.query<{ lockedUntil: Date | null; accountLockedUntil: Date | null; now: Date; address: number }>(
    `WITH client AS (
       SELECT CASE WHEN $2::text IS NULL THEN NULL
                   ELSE network(set_masklen($2::inet, CASE family($2::inet) WHEN 6 THEN 64 ELSE 32 END)) END AS net
     ), since AS (
       SELECT GREATEST(now() - make_interval(hours => $4::int),
                       COALESCE((SELECT max(at) FROM audit_log, client
                                  WHERE actor = $1 AND action = 'login'
                                    AND (ip::inet <<= client.net OR (ip IS NULL AND client.net IS NULL))), '-infinity')) AS at,
              GREATEST(now() - make_interval(mins => $3::int),
                       COALESCE((SELECT max(at) FROM audit_log WHERE actor = $1 AND action = 'login'), '-infinity')) AS account_at
     ), failures AS (
       SELECT a.at, (a.ip::inet <<= client.net OR (a.ip IS NULL AND client.net IS NULL)) AS here
         FROM audit_log a, client, since
        WHERE a.actor = $1 AND a.action = 'login_failed' AND a.at > LEAST(since.at, since.account_at)
          AND a.details->>'reason' IS DISTINCT FROM 'rate_limited'
     ), pair AS (
       SELECT count(*)::int AS n, max(f.at) AS last FROM failures f, since WHERE f.here AND f.at > since.at
     ), account AS (
       SELECT count(*)::int AS n, max(f.at) AS last FROM failures f, since WHERE f.at > since.account_at
     )
     SELECT CASE WHEN pair.n >= $5::int THEN pair.last + make_interval(secs => LEAST($6::int * power(2, pair.n - $5::int), $3::int * 60)) END AS "lockedUntil",
            CASE WHEN account.n >= $5::int * $7::int
                 THEN account.last + make_interval(secs => LEAST($6::int * power(2, account.n - $5::int * $7::int), $3::int * 60)) END AS "accountLockedUntil",
            now() AS now,
            (SELECT count(*)::int FROM audit_log, client
              WHERE action = 'login_failed' AND client.net IS NOT NULL AND ip::inet <<= client.net
                AND at > now() - make_interval(mins => $3::int)) AS address
       FROM pair, account`,
    [email, ip, login.windowMinutes, PAIR_MEMORY_HOURS, login.maxFailures, login.backoffSeconds, ACCOUNT_FACTOR],
  );
  const row = rows[0]!;
  const locked = (until: Date | null) => until !== null && until > row.now;
  return locked(row.lockedUntil) || locked(row.accountLockedUntil) || row.address >= login.maxFailures * 4;
}

/**
 * Checks credentials, with backoff per account and address and a cap per address (see loginBlocked),
 * and writes every outcome to the audit log.
 */
export async function authenticate(deps: LoginDeps, input: { email: string; password: string; ip: string | null }): Promise<LoginResult> {
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
