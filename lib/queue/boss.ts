import { PgBoss } from "pg-boss";
import type { ConstructorOptions, Db as IDatabase, JobInsert, Queue } from "pg-boss";
import { DEFAULT_DATABASE_TIMEOUTS, type Queryable } from "../db/pool";
import { logger } from "../observability/logger";
import { QUEUES, serializationKey, type WebhookJob } from "./queues";

export type { PgBoss };

export const BOSS_SCHEMA = "pgboss";

/**
 * A running job's worker refreshes its heartbeat every half of this; a job whose heartbeat is older
 * is presumed to belong to a dead worker (kill -9, OOM, lost host) and is failed back to retry by
 * the next monitor pass of any worker. pg-boss's minimum. Unlike `expireInSeconds`, it does not cut
 * short a live handler that is merely slow (a refetch behind a rate limiter, a lock wait).
 */
export const HEARTBEAT_SECONDS = 10;

function baseOptions(connectionString: string, connectMs = DEFAULT_DATABASE_TIMEOUTS.connectMs): ConstructorOptions {
  return {
    connectionString,
    schema: BOSS_SCHEMA,
    max: 4,
    application_name: "webhook-inbox:queue",
    connectionTimeoutMillis: connectMs,
  };
}

/**
 * pg-boss reports a lost connection, a failed poll or maintenance pass as an 'error' event, and an
 * EventEmitter with no 'error' listener throws it at the process. Every instance gets one here; it
 * goes on polling and reconnecting by itself.
 */
function reportingErrors(boss: PgBoss, label: string): PgBoss {
  boss.on("error", (error) => logger("queue").error({ boss: label, error: error.message }, "queue error"));
  return boss;
}

/** A pg-boss instance that only sends jobs (the web process): no maintenance, no schema changes. */
export function createProducer(connectionString: string, connectMs?: number): PgBoss {
  return reportingErrors(
    new PgBoss({
      ...baseOptions(connectionString, connectMs),
      supervise: false,
      schedule: false,
      migrate: false,
      createSchema: false,
      registerInstance: false,
    }),
    "producer",
  );
}

/**
 * A pg-boss instance that works queues, runs maintenance and schedules (the worker process).
 * `monitorSeconds` is how often it fails jobs with a stale heartbeat (those of a killed worker) or
 * past their expiry back to retry: a dead worker's jobs run again within HEARTBEAT_SECONDS +
 * monitorSeconds + the first retry delay.
 */
export function createWorkerBoss(connectionString: string, monitorSeconds = 5): PgBoss {
  return reportingErrors(
    new PgBoss({
      ...baseOptions(connectionString),
      migrate: false,
      createSchema: false,
      instanceName: "worker",
      monitorIntervalSeconds: monitorSeconds,
      superviseIntervalSeconds: monitorSeconds,
    }),
    "worker",
  );
}

/**
 * Creates the pg-boss schema and the given queues, and brings existing queues' options up to date;
 * idempotent. A queue named as another's dead letter is created first (pg-boss requires it).
 */
export async function createQueues(connectionString: string, queues: Queue[]): Promise<void> {
  const deadLetters = new Set(queues.flatMap((queue) => (queue.deadLetter ? [queue.deadLetter] : [])));
  const ordered = [...queues.filter((queue) => deadLetters.has(queue.name)), ...queues.filter((queue) => !deadLetters.has(queue.name))];
  const boss = reportingErrors(
    new PgBoss({
      ...baseOptions(connectionString),
      supervise: false,
      schedule: false,
      registerInstance: false,
    }),
    "install",
  );
  await boss.start();
  try {
    for (const { name, policy, partition, ...options } of ordered) {
      await boss.createQueue(name, { policy, partition, ...options });
      await boss.updateQueue(name, options);
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

export type DispatchableEvent = {
  id: number;
  provider: string;
  resourceId: string | null;
  eventId: string;
  /** webhook_inbox.received_at as RECEIVED_AT_TEXT writes it (the job carries it). */
  receivedAt?: string;
};

/** An inbox row's received_at as exact text (a JS Date would drop its microseconds), aliased. */
export const RECEIVED_AT_TEXT = `to_jsonb(received_at) #>> '{}' AS "receivedAt"`;

export type DispatchOptions = {
  /** A job still running after this long is presumed dead (its worker was killed) and retried. */
  expireInSeconds: number;
  startAfter?: Date;
};

export function webhookJob(event: DispatchableEvent, options: DispatchOptions): JobInsert<WebhookJob> {
  return {
    data: { inboxId: event.id, ...(event.receivedAt ? { receivedAt: event.receivedAt } : {}) },
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
 * rewritten to read its jobs from `rowsCte` instead of a parameter: one job per row of `rowsCte`
 * (columns `id`, `received_at` and `singleton_key`), each a copy of one template job with
 * `data.inboxId`, `data.receivedAt` and `singletonKey` set from the row. Param $1 is the template; the caller's own params start at $2.
 * Throws if pg-boss's statement changes shape (tested on upgrade).
 */
export async function webhookJobInsertCte(boss: PgBoss, options: DispatchOptions, rowsCte: string): Promise<JobInsertCte> {
  let captured: { text: string; values: unknown[] } | undefined;
  const recorder: IDatabase = {
    executeSql: async (text, values) => {
      captured = { text, values: values as unknown[] };
      return { rows: [] };
    },
  };
  const template = webhookJob({ id: 0, provider: "template", resourceId: null, eventId: "template" }, options);
  await boss.insert(QUEUES.webhooks, [template], { db: recorder });
  const source = "json_to_recordset($1::text::json)";
  if (!captured || !captured.text.trimStart().startsWith("INSERT") || captured.text.split(source).length !== 2) {
    throw new Error("pg-boss's job insert statement changed shape; update webhookJobInsertCte");
  }
  const data = "jsonb_set(jsonb_set(t.job, '{data,inboxId}', to_jsonb(r.id)), '{data,receivedAt}', to_jsonb(r.received_at))";
  const job = `jsonb_set(${data}, '{singletonKey}', to_jsonb(r.singleton_key))`;
  const jobs = `json_to_recordset((SELECT json_agg(${job}) FROM ${rowsCte} r CROSS JOIN jsonb_array_elements($1::jsonb) AS t(job)))`;
  return { sql: captured.text.replace(source, () => jobs), template: captured.values[0] as string };
}
