import { PgBoss } from "pg-boss";
import type { ConstructorOptions, Db as IDatabase, JobInsert, Queue } from "pg-boss";
import type { Queryable } from "../db/pool";
import { QUEUES, serializationKey, type WebhookJob } from "./queues";

export type { PgBoss };

export const BOSS_SCHEMA = "pgboss";

// The webhooks queue gets its own table (partition) and its own worker concurrency: a bulkhead,
// so a flood on another queue can't slow event processing. pg-boss retries cover infrastructure
// failures only (a crashed or expired handler); business retries with the 10s..15m schedule are
// scheduled by lib/inbox/process-event.ts, which owns the attempt count.
const QUEUE_DEFINITIONS: Queue[] = [
  {
    name: QUEUES.webhooks,
    policy: "singleton",
    partition: true,
    retryLimit: 5,
    retryDelay: 2,
    retryBackoff: true,
    retryDelayMax: 300,
    expireInSeconds: 120,
    deleteAfterSeconds: 24 * 3600,
  },
  { name: QUEUES.sweeper, policy: "exclusive", retryLimit: 0, expireInSeconds: 300, deleteAfterSeconds: 3600 },
  { name: QUEUES.replays, policy: "standard", retryLimit: 0, expireInSeconds: 3600, deleteAfterSeconds: 7 * 24 * 3600 },
];

function baseOptions(connectionString: string): ConstructorOptions {
  return { connectionString, schema: BOSS_SCHEMA, max: 4, application_name: "webhook-inbox:queue" };
}

/** A pg-boss instance that only sends jobs (the web process): no maintenance, no schema changes. */
export function createProducer(connectionString: string): PgBoss {
  return new PgBoss({
    ...baseOptions(connectionString),
    supervise: false,
    schedule: false,
    migrate: false,
    createSchema: false,
    registerInstance: false,
  });
}

/**
 * A pg-boss instance that works queues, runs maintenance and schedules (the worker process).
 * `monitorSeconds` is how often it fails expired jobs (those of a killed worker) back to retry.
 */
export function createWorkerBoss(connectionString: string, monitorSeconds = 60): PgBoss {
  return new PgBoss({
    ...baseOptions(connectionString),
    migrate: false,
    createSchema: false,
    instanceName: "worker",
    monitorIntervalSeconds: monitorSeconds,
    superviseIntervalSeconds: monitorSeconds,
  });
}

/** Creates the pg-boss schema and our queues; part of `npm run db:migrate`. Idempotent. */
export async function installQueues(connectionString: string): Promise<void> {
  const boss = new PgBoss({
    ...baseOptions(connectionString),
    supervise: false,
    schedule: false,
    registerInstance: false,
  });
  boss.on("error", (error) => console.error("[queue] install error:", error));
  await boss.start();
  try {
    for (const { name, policy, partition, ...options } of QUEUE_DEFINITIONS) {
      await boss.createQueue(name, { policy, partition, ...options });
      const { retryDelayMax: _max, ...updatable } = options;
      await boss.updateQueue(name, updatable);
    }
  } finally {
    await boss.stop({ graceful: false });
  }
}

export type QueueDepth = { ready: number; deferred: number; active: number };

/** The webhooks queue's job counts (from pg-boss's stats cache), or null if the queue is missing. */
export async function webhooksQueueDepth(boss: PgBoss): Promise<QueueDepth | null> {
  const queue = await boss.getQueue(QUEUES.webhooks);
  return queue ? { ready: queue.readyCount, deferred: queue.deferredCount, active: queue.activeCount } : null;
}

/** pg-boss statements run on our own client, so a job commits or rolls back with our transaction. */
export function onClient(client: Queryable): IDatabase {
  return { executeSql: (text, values) => client.query(text, values as unknown[]) };
}

export type DispatchableEvent = { id: number; provider: string; resourceId: string | null; eventId: string };

export type DispatchOptions = {
  /** A job still running after this long is presumed dead (its worker was killed) and retried. */
  expireInSeconds: number;
  startAfter?: Date;
};

export function webhookJob(event: DispatchableEvent, options: DispatchOptions): JobInsert<WebhookJob> {
  return {
    data: { inboxId: event.id },
    singletonKey: serializationKey(event.provider, event.resourceId, event.eventId),
    expireInSeconds: options.expireInSeconds,
    ...(options.startAfter ? { startAfter: options.startAfter } : {}),
  };
}

/** Enqueues processing jobs for inbox rows on `client` (inside the caller's transaction). */
export async function dispatchEvents(
  boss: PgBoss,
  client: Queryable,
  events: DispatchableEvent[],
  options: DispatchOptions,
): Promise<void> {
  if (events.length === 0) return;
  await boss.insert(
    QUEUES.webhooks,
    events.map((event) => webhookJob(event, options)),
    { db: onClient(client) },
  );
}

/** A pg-boss job insert turned into a CTE that takes its jobs from rows inserted earlier in the same statement. */
export type JobInsertCte = { sql: string; template: string };

/**
 * pg-boss's own statement for inserting webhook jobs, captured through its db adapter (so table,
 * columns, defaults from the queue and the singleton policy are exactly what `boss.insert` does),
 * rewritten to read its jobs from `rowsCte` instead of a parameter: one job per row passing `where`,
 * each a copy of `template` with `data.inboxId` set to the row's id. Param $1 is the template; the
 * caller's own params start at $2. Throws if pg-boss's statement changes shape (tested on upgrade).
 */
export async function webhookJobInsertCte(
  boss: PgBoss,
  template: DispatchableEvent,
  options: DispatchOptions,
  rowsCte: string,
  where: string,
): Promise<JobInsertCte> {
  let captured: { text: string; values: unknown[] } | undefined;
  const recorder: IDatabase = {
    executeSql: async (text, values) => {
      captured = { text, values: values as unknown[] };
      return { rows: [] };
    },
  };
  await boss.insert(QUEUES.webhooks, [webhookJob(template, options)], { db: recorder });
  const source = "json_to_recordset($1::text::json)";
  if (!captured || !captured.text.trimStart().startsWith("INSERT") || captured.text.split(source).length !== 2) {
    throw new Error("pg-boss's job insert statement changed shape; update webhookJobInsertCte");
  }
  const jobs =
    `json_to_recordset((SELECT json_agg(jsonb_set(t.job, '{data,inboxId}', to_jsonb(r.id))) ` +
    `FROM ${rowsCte} r CROSS JOIN jsonb_array_elements($1::jsonb) AS t(job) WHERE ${where}))`;
  return { sql: captured.text.replace(source, () => jobs), template: captured.values[0] as string };
}
