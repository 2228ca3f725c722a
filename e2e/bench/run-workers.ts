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

/** Waits (polling twice a second) until no event is pending. */
export async function waitDrained(pool: Pool): Promise<void> {
  while ((await pendingCount(pool)) > 0) await new Promise((done) => setTimeout(done, 500));
}
