import type { PgBoss } from "pg-boss";
import type { AppConfig } from "../../config/env";
import { withTransaction, type Pool } from "../../db/pool";
import { CircuitOpenError } from "../../http/circuit-breaker";
import { dispatchEvents } from "../../queue/boss";
import { MissingCredentialError } from "./observe-charge";
import {
  deferAttempt,
  finishAttempt,
  lockOwnAttempt,
  recordAll,
  rescheduleAttempt,
  settleEvents,
  type Settled,
  type StartedAttempt,
} from "./track-attempts";

export type RetryOutcome = "retry" | "deferred" | "failed" | "skipped";

/** Seconds to wait after failed attempt number `attempt` (1-based); the last delay repeats. */
function retryDelaySeconds(delays: readonly number[], attempt: number): number {
  return delays[Math.min(Math.max(attempt, 1), delays.length) - 1] ?? 0;
}

/** The error as an attempt records it: its name, message and cause, bounded. */
function describeError(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : "";
    return `${error.name === "Error" ? "" : `${error.name}: `}${error.message}${cause}`.slice(0, 2000);
  }
  return String(error).slice(0, 2000);
}

/** After a failed attempt: retry on the backoff schedule, defer for an open circuit, or give up. */
export async function scheduleRetry(
  deps: { pool: Pool; boss: PgBoss; config: AppConfig },
  started: StartedAttempt,
  error: unknown,
): Promise<RetryOutcome> {
  const message = describeError(error);
  const failed: Settled = { started, status: "failed", error: message };
  const outcome = await withTransaction(deps.pool, async (tx): Promise<RetryOutcome> => {
    if (!(await lockOwnAttempt(tx, started))) {
      await finishAttempt(tx, started.attemptId, "failed", message);
      return "skipped";
    }
    if (error instanceof CircuitOpenError || error instanceof MissingCredentialError) {
      // The gateway is known to be down (come back when the circuit half-opens), or we can't
      // authenticate until the operator sets a credential: nothing a retry could fix, attempt not spent.
      await deferAttempt(tx, started, error.retryAt, message);
      await dispatchEvents(deps.boss, tx, [started], { startAfter: error.retryAt, expireInSeconds: deps.config.worker.jobExpireSeconds });
      return "deferred";
    }
    if (started.attempts >= deps.config.worker.maxAttempts) {
      await settleEvents(tx, [failed]);
      return "failed";
    }
    const retryAt = new Date(Date.now() + retryDelaySeconds(deps.config.worker.retryDelaysSeconds, started.attempts) * 1000);
    await rescheduleAttempt(tx, started, retryAt, message);
    await dispatchEvents(deps.boss, tx, [started], { startAfter: retryAt, expireInSeconds: deps.config.worker.jobExpireSeconds });
    return "retry";
  });
  if (outcome === "failed") recordAll([failed]);
  return outcome;
}
