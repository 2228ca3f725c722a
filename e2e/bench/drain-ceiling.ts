import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { connectClient } from "@/lib/db/pool";
import { countCpu, reapedChildrenCpuMs } from "./cpu-time";
import { plural } from "@/lib/text/words";

export type DrainCeiling = { events: number; perSecond: number; databaseMsPerEvent: number; pgbenchMsPerEvent: number };

/** pgbench from $PGBENCH, the server's bin directory (pg_config) or PATH; null when there is none. */
export function findPgbench(): string | null {
  if (process.env.PGBENCH) return process.env.PGBENCH;
  try {
    const candidate = join(execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim(), "pgbench");
    if (existsSync(candidate)) return candidate;
  } catch {
    // no pg_config: try PATH
  }
  try {
    execFileSync("pgbench", ["--version"], { stdio: "ignore" });
    return "pgbench";
  } catch {
    return null;
  }
}

/** The ceiling did the work it timed: no event left pending, every job completed. */
async function assertAllSettled(url: string, events: number): Promise<void> {
  const client = await connectClient({ connectionString: url });
  try {
    const { rows } = await client.query<{ pending: number; completed: number }>(
      `SELECT (SELECT count(*)::int FROM webhook_inbox WHERE status = 'pending') AS pending,
              (SELECT count(*)::int FROM pgboss.job WHERE state = 'completed') AS completed`,
    );
    if (rows[0]!.pending !== 0 || rows[0]!.completed !== events) {
      throw new Error(
        `the ceiling left ${plural(rows[0]!.pending, "event")} pending and completed ${rows[0]!.completed} of ${plural(events, "job")}`,
      );
    }
  } finally {
    await client.end();
  }
}

/**
 * The database's own drain ceiling: `drain-ceiling.sql` run by pgbench with `clients` connections,
 * `batch` events per transaction and no worker, over the copy `url` of the backlog (every job
 * still queued). `appliedInboxIds` are the events the product's own drain applied to a payment;
 * only those write a payment and a ledger entry here too. Throws unless every event was settled.
 */
export async function measureDrainCeiling(
  pgbench: string,
  url: string,
  appliedInboxIds: string[],
  { clients, batch }: { clients: number; batch: number },
): Promise<DrainCeiling> {
  const client = await connectClient({ connectionString: url });
  let events: number;
  let longest: number;
  try {
    // Each payment's jobs go to one client, so no two clients ever hold one payment's job at once,
    // as pg-boss's singleton policy guarantees the worker (its unique index refuses a second active
    // job for one key). A client's batches take one event per payment, the payments' first events
    // first, then their second ones, …: queue order within each payment.
    await client.query(
      `CREATE TABLE ceiling_plan AS
       WITH jobs AS (
         SELECT abs(hashtext(j.singleton_key)::bigint) % ${clients} AS client, j.name, j.id AS job_id, j.created_on,
                (j.data->>'inboxId')::bigint AS inbox_id,
                row_number() OVER (PARTITION BY j.singleton_key ORDER BY j.created_on, j.id) AS nth
           FROM pgboss.job j WHERE j.state = 'created'
       ), placed AS (
         SELECT *, (row_number() OVER (PARTITION BY client, nth ORDER BY created_on, job_id) - 1) / ${batch} AS slot FROM jobs
       )
       SELECT client, dense_rank() OVER (PARTITION BY client ORDER BY nth, slot)::int AS b,
              name, job_id, inbox_id, false AS applies
         FROM placed`,
    );
    await client.query("CREATE INDEX ON ceiling_plan (client, b)");
    await client.query("UPDATE ceiling_plan SET applies = true WHERE inbox_id = ANY($1::bigint[])", [appliedInboxIds]);
    await client.query("VACUUM ANALYZE ceiling_plan");
    const { rows } = await client.query<{ events: string; longest: number }>(
      "SELECT count(*) AS events, max(b) AS longest FROM ceiling_plan",
    );
    events = Number(rows[0]!.events);
    longest = rows[0]!.longest;
  } finally {
    await client.end();
  }
  const script = join(import.meta.dirname, "drain-ceiling.sql");
  const args = ["-n", "-M", "prepared", "-c", String(clients), "-j", String(Math.min(clients, availableParallelism()))];
  // Every client runs as many transactions as the longest share; past its own share they find no job.
  args.push("-t", String(longest), "-D", "i=0", "-f", script, url);
  const cpu = countCpu(() => []);
  const pgbenchBefore = reapedChildrenCpuMs();
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(pgbench, args, { stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout.on("data", (chunk) => (text += chunk));
    child.stderr.on("data", (chunk) => (text += chunk));
    child.once("error", reject);
    child.once("close", (code) => (code === 0 ? resolve(text) : reject(new Error(`pgbench exited with ${code}:\n${text}`))));
  });
  const { databaseMs } = cpu();
  const pgbenchMs = reapedChildrenCpuMs() - pgbenchBefore;
  const processed = Number(/number of transactions actually processed: (\d+)/.exec(output)?.[1]);
  const tps = Number(/tps = ([\d.]+) \(without initial connection time\)/.exec(output)?.[1]);
  if (processed !== longest * clients || !Number.isFinite(tps)) throw new Error(`pgbench stopped short:\n${output}`);
  await assertAllSettled(url, events);
  const elapsedSeconds = processed / tps;
  return { events, perSecond: events / elapsedSeconds, databaseMsPerEvent: databaseMs / events, pgbenchMsPerEvent: pgbenchMs / events };
}
