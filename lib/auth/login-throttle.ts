import type { AppConfig } from "../config/env";
import { withTransaction, type Pool } from "../db/pool";

// Attempts of one account from one address count until it signs in there, or for a day; older rows
// are deleted as new attempts come in.
const PAIR_MEMORY_HOURS = 24;
const EXPIRED_ROWS_PER_ATTEMPT = 100;

// Past this many failures of one account from all addresses together (the pair's threshold times
// this), the account itself backs off, wherever the next attempt comes from.
const ACCOUNT_FACTOR = 3;

// An address failing on any accounts this many times the pair's threshold within the window is refused.
const ADDRESS_FACTOR = 4;

export type LoginAttempt = { id: string };

/** What an attempt checks: passwords and one-time codes are counted apart (a right password doesn't clear wrong codes). */
export type LoginFactor = "password" | "code";

/**
 * Counts an attempt before its password is checked, or refuses it: one transaction locks the
 * account and the client's address (advisory locks, so concurrent attempts on either are counted one
 * after another), checks the throttle and inserts the attempt as pending. A pending attempt counts as
 * a failure until settled, so a burst gets no more checks than the throttle allows, however it is timed.
 *
 * The throttle: after `maxFailures` failures of one account from one address, that address waits
 * `backoffSeconds`, doubling with each further failure, capped at the window. Only that address waits
 * (someone guessing from elsewhere can't lock the owner out) until the account's failures from
 * everywhere reach maxFailures x ACCOUNT_FACTOR: then it backs off for every address the same way. An
 * address spraying many accounts is refused outright. An IPv6 address counts as its /64.
 *
 * One-time codes (`factor` "code") are throttled the same way, counted apart from passwords; the
 * address's cap counts both.
 *
 * Returns the attempt to settle, or null when refused.
 */
export async function admitAttempt(
  pool: Pool,
  email: string,
  ip: string | null,
  login: AppConfig["login"],
  factor: LoginFactor = "password",
): Promise<LoginAttempt | null> {
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<{ network: string | null }>(
      `SELECT network::text, pg_advisory_xact_lock(hashtextextended('login account:' || $3 || ':' || $1, 0)),
              pg_advisory_xact_lock(hashtextextended('login address:' || COALESCE(network::text, ''), 0))
         FROM (SELECT CASE WHEN $2::text IS NULL THEN NULL
                           ELSE network(set_masklen($2::inet, CASE family($2::inet) WHEN 6 THEN 64 ELSE 32 END)) END AS network) client`,
      [email, ip, factor],
    );
    const network = rows[0]!.network;
    await client.query(
      `DELETE FROM login_attempts WHERE id IN (SELECT id FROM login_attempts WHERE at < now() - make_interval(hours => $1::int) LIMIT $2)`,
      [PAIR_MEMORY_HOURS, EXPIRED_ROWS_PER_ATTEMPT],
    );
    // Read after the locks: this statement sees every attempt counted before this one.
    const inserted = await client.query<{ id: string }>(
      `WITH since AS (
         SELECT GREATEST(now() - make_interval(hours => $4::int),
                         COALESCE((SELECT max(at) FROM login_attempts
                                    WHERE email = $1 AND factor = $9 AND outcome = 'succeeded' AND network IS NOT DISTINCT FROM $2::inet), '-infinity')) AS at,
                GREATEST(now() - make_interval(mins => $3::int),
                         COALESCE((SELECT max(at) FROM login_attempts WHERE email = $1 AND factor = $9 AND outcome = 'succeeded'), '-infinity')) AS account_at
       ), failures AS (
         SELECT a.at, a.network IS NOT DISTINCT FROM $2::inet AS here
           FROM login_attempts a, since
          WHERE a.email = $1 AND a.factor = $9 AND a.outcome <> 'succeeded' AND a.at > LEAST(since.at, since.account_at)
       ), pair AS (
         SELECT count(*)::int AS n, max(f.at) AS last FROM failures f, since WHERE f.here AND f.at > since.at
       ), account AS (
         SELECT count(*)::int AS n, max(f.at) AS last FROM failures f, since WHERE f.at > since.account_at
       ), address AS (
         SELECT count(*)::int AS n FROM login_attempts
          WHERE $2::inet IS NOT NULL AND network = $2::inet AND outcome <> 'succeeded' AND at > now() - make_interval(mins => $3::int)
       ), locks AS (
         SELECT CASE WHEN pair.n >= $5::int
                     THEN pair.last + make_interval(secs => LEAST($6::int * power(2, pair.n - $5::int), $3::int * 60)) END AS pair_until,
                CASE WHEN account.n >= $5::int * $7::int
                     THEN account.last + make_interval(secs => LEAST($6::int * power(2, account.n - $5::int * $7::int), $3::int * 60)) END AS account_until,
                address.n >= $5::int * $8::int AS spraying
           FROM pair, account, address
       )
       INSERT INTO login_attempts (email, network, factor)
       SELECT $1, $2::inet, $9 FROM locks
        WHERE NOT spraying AND COALESCE(pair_until <= now(), true) AND COALESCE(account_until <= now(), true)
       RETURNING id::text`,
      [
        email,
        network,
        login.windowMinutes,
        PAIR_MEMORY_HOURS,
        login.maxFailures,
        login.backoffSeconds,
        ACCOUNT_FACTOR,
        ADDRESS_FACTOR,
        factor,
      ],
    );
    return inserted.rows[0] ?? null;
  });
}

/** Records how a counted attempt ended: a success clears the pair's and the account's failures. */
export async function settleAttempt(pool: Pool, attempt: LoginAttempt, succeeded: boolean): Promise<void> {
  await pool.query("UPDATE login_attempts SET outcome = $2 WHERE id = $1", [attempt.id, succeeded ? "succeeded" : "failed"]);
}
