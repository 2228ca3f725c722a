import { spawn, type ChildProcess } from "node:child_process";
import type { Pool } from "@/lib/db/pool";

/** `count` worker processes (`npm run worker`) with this environment added to ours. */
export function startWorkers(count: number, env: Record<string, string>): ChildProcess[] {
  return Array.from({ length: count }, () =>
    spawn(process.execPath, ["--import", "tsx", "worker/worker.ts"], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "ignore", "inherit"],
    }),
  );
}

export async function stopWorkers(children: ChildProcess[]): Promise<void> {
  for (const child of children) child.kill("SIGTERM");
  await Promise.all(
    children.map(
      (child) => new Promise((done) => (child.exitCode !== null || child.signalCode !== null ? done(null) : child.once("exit", done))),
    ),
  );
}

export async function pendingCount(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_inbox WHERE status = 'pending'");
  return rows[0]!.n;
}

// Whether any event is pending: the first one found ends the scan. A count of the backlog, twice a
// second, cost the drained database a tenth of its time (it showed in the statement profile).
async function anyPending(pool: Pool): Promise<boolean> {
  const { rows } = await pool.query<{ pending: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM webhook_inbox WHERE status = 'pending') AS pending",
  );
  return rows[0]!.pending;
}

/** Waits (polling twice a second) until no event is pending. */
export async function waitDrained(pool: Pool): Promise<void> {
  while (await anyPending(pool)) await new Promise((done) => setTimeout(done, 500));
}
