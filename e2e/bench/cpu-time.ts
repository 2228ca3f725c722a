import { readdirSync, readFileSync } from "node:fs";

// /proc/<pid>/stat counts CPU in clock ticks; Linux's USER_HZ is 100 on every common build.
const TICK_MS = 10;

/** CPU time (user + system, ms) each process has used so far, by pid. Linux only. */
function cpuByPid(include: (pid: number, command: string) => boolean): Map<number, number> {
  const used = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const command = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      if (!include(Number(entry), command)) continue;
      // Fields after the parenthesised command start at state (field 3); utime and stime are 14 and 15.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      used.set(Number(entry), (Number(fields[11]) + Number(fields[12])) * TICK_MS);
    } catch {
      // the process ended while we read it
    }
  }
  return used;
}

/**
 * Starts counting the CPU time PostgreSQL's processes (every backend and helper on this host) and
 * the given processes use; `stop` returns both in ms. A backend that exits in between takes its
 * share with it, so the database figure is a lower bound.
 */
export function countCpu(pids: () => number[]): () => { databaseMs: number; processesMs: number } {
  const isDatabase = (_pid: number, command: string) => command === "postgres";
  const databaseBefore = cpuByPid(isDatabase);
  return () => {
    const databaseAfter = cpuByPid(isDatabase);
    let databaseMs = 0;
    for (const [pid, ms] of databaseAfter) databaseMs += ms - (databaseBefore.get(pid) ?? 0);
    const own = new Set(pids());
    let processesMs = 0;
    for (const ms of cpuByPid((pid) => own.has(pid)).values()) processesMs += ms;
    return { databaseMs, processesMs };
  };
}
