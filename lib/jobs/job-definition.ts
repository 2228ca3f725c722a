import type { Job, JobResult, Queue, WorkOptions } from "pg-boss";
import type { z } from "zod";
import type { AppConfig } from "../config/env";
import type { Pool } from "../db/pool";
import type { GatewayClients } from "../http/gateway-clients";
import type { AccountDirectory } from "../gateway-accounts/account-directory";
import type { PgBoss } from "../queue/boss";

/** What every job's `run` may use: the worker builds it once (lib/runtime), the CLI for one command. */
export type JobDeps = {
  pool: Pool;
  boss: PgBoss;
  config: AppConfig;
  gateways: GatewayClients;
  /** The gateway accounts (refetch and reconciliation credentials); unset: the configuration's alone. */
  accounts?: AccountDirectory;
  /** Recorded on each processing attempt (host and pid), so an operator can tell which worker ran it. */
  workerId: string;
};

type QueueSide<Data> = {
  /** The pg-boss queue's name: stored in every database that ran this code, so never renamed. */
  name: string;
  /** The job's data, parsed before `run`. A scheduled job carries none: parsed as `{}`. */
  data: z.ZodType<Data>;
  /** pg-boss's queue settings (policy, retries, expiry, how long finished jobs are kept). */
  queue: Omit<Queue, "name">;
  /** The cron (UTC) every worker schedules it on; absent, the job is only sent (by ingest, the console...). */
  schedule?: (config: AppConfig) => string;
  /** How each worker takes it: concurrency, polling interval, batch size. */
  work: (config: AppConfig) => WorkOptions;
};

/** A queue whose jobs are handled one at a time. */
export type JobDefinition<Data = unknown, Result = unknown> = QueueSide<Data> & {
  /** The job's work; the CLI commands that do the same work call this too. */
  run(deps: JobDeps, data: Data): Promise<Result>;
  /** What the worker logs of a finished job (the CLI prints its own line instead). */
  report?(result: Result): void;
  /** Keep the result as the job's pg-boss output, for a sender that waits on it (the console). */
  keepsResult?: true;
};

/** A queue whose jobs are fetched and handled in batches, settled one by one (`perJobResults`). */
export type BatchJobDefinition<Data = unknown> = QueueSide<Data> & {
  runBatch(deps: JobDeps, jobs: Job<unknown>[]): Promise<JobResult[]>;
};

export type AnyJobDefinition = JobDefinition | BatchJobDefinition;
