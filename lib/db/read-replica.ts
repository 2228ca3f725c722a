import type { Pool } from "./pool";
import { isDatabaseUnavailable } from "./pool";

/** Where the console's reads go now, and why. */
export type ReadTarget =
  | { target: "primary"; reason: "no_replica" | "replica_unreachable" | "replica_behind" | "not_a_replica"; lagSeconds: number | null }
  | { target: "replica"; lagSeconds: number };

export type ReadRouter = {
  /** The pool the console's reads use now (checking the replica at most every `checkEveryMs`). */
  target: () => Promise<ReadTarget>;
  /**
   * Runs read-only `work` on the replica when it is there and close enough, else on the primary;
   * a replica that fails mid-read (gone, restarting) is marked away and the work runs again on the primary.
   */
  read: <T>(work: (pool: Pool) => Promise<T>) => Promise<T>;
};

export type ReadRouterOptions = { maxLagSeconds: number; checkEveryMs?: number; now?: () => number };

/**
 * The replica pool's statement bound. Console reads take milliseconds; a replica that is
 * restarting (or a pooler waiting for it: PgBouncer's query_wait_timeout) would otherwise hold a
 * page for the primary's whole statement timeout before the read falls back to the primary.
 */
export const REPLICA_STATEMENT_MS = 5_000;

// How far the replica has replayed compared with where the primary's WAL was a moment before:
// caught up (0), else the age of the last transaction it replayed. Measured against the primary's
// position, not the replica's own receive position, so a replica cut off from its primary (which
// has replayed all it received) still shows as behind.
const PRIMARY_POSITION = "SELECT pg_current_wal_lsn()::text AS lsn";
const REPLICA_LAG = `
  SELECT pg_is_in_recovery() AS standby,
         COALESCE(pg_last_wal_replay_lsn() >= $1::pg_lsn, false) AS caught_up,
         extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8 AS since_replay`;

/** Without a replica, every read goes to the primary. */
export function primaryOnly(primary: Pool): ReadRouter {
  const target: ReadTarget = { target: "primary", reason: "no_replica", lagSeconds: null };
  return { target: async () => target, read: (work) => work(primary) };
}

/** Routes the console's reads to `replica` while it answers and lags less than `maxLagSeconds`. */
export function createReadRouter(primary: Pool, replica: Pool, options: ReadRouterOptions): ReadRouter {
  const checkEveryMs = options.checkEveryMs ?? 2_000;
  const now = options.now ?? Date.now;
  let last: { at: number; target: ReadTarget } | undefined;
  let checking: Promise<ReadTarget> | undefined;

  async function check(): Promise<ReadTarget> {
    try {
      const { rows: position } = await primary.query<{ lsn: string }>(PRIMARY_POSITION);
      const { rows } = await replica.query<{ standby: boolean; caught_up: boolean; since_replay: number | null }>(REPLICA_LAG, [
        position[0]!.lsn,
      ]);
      const state = rows[0]!;
      if (!state.standby) return { target: "primary", reason: "not_a_replica", lagSeconds: null };
      const lagSeconds = state.caught_up ? 0 : (state.since_replay ?? Number.POSITIVE_INFINITY);
      if (lagSeconds > options.maxLagSeconds) return { target: "primary", reason: "replica_behind", lagSeconds };
      return { target: "replica", lagSeconds };
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      return { target: "primary", reason: "replica_unreachable", lagSeconds: null };
    }
  }

  async function target(): Promise<ReadTarget> {
    if (last && now() - last.at < checkEveryMs) return last.target;
    checking ??= check()
      .then((result) => {
        last = { at: now(), target: result };
        return result;
      })
      .finally(() => {
        checking = undefined;
      });
    return checking;
  }

  async function read<T>(work: (pool: Pool) => Promise<T>): Promise<T> {
    if ((await target()).target === "primary") return work(primary);
    try {
      return await work(replica);
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      last = { at: now(), target: { target: "primary", reason: "replica_unreachable", lagSeconds: null } };
      return work(primary);
    }
  }

  return { target, read };
}

/** One line for the console: where lists read from, and how far behind the replica is. */
export function describeReadTarget(target: ReadTarget): string {
  const lag = (seconds: number | null) => (seconds === null || !Number.isFinite(seconds) ? "unknown" : `${seconds.toFixed(1)} s`);
  if (target.target === "replica") return `Lists read the replica (${lag(target.lagSeconds)} behind)`;
  switch (target.reason) {
    case "no_replica":
      return "Lists read the primary";
    case "replica_unreachable":
      return "Lists read the primary: the replica is unreachable";
    case "replica_behind":
      return `Lists read the primary: the replica is ${lag(target.lagSeconds)} behind`;
    case "not_a_replica":
      return "Lists read the primary: DATABASE_READ_URL is not a standby";
  }
}
