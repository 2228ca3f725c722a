import { allProcStats, procStat, type ProcStat } from "../harness/proc-stat";

// /proc/<pid>/stat counts CPU in clock ticks; Linux's USER_HZ is 100 on every common build.
const TICK_MS = 10;

// CPU time (user + system, ticks) a process has used so far, with that of its children that ended
// and were reaped (so a PostgreSQL backend that disconnects leaves its share in the postmaster's).
function ownAndReapedTicks({ fields }: ProcStat): number {
  return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
}

/** CPU time (ms) this process's ended and reaped children have used so far. */
export function reapedChildrenCpuMs(): number {
  const { fields } = procStat("self");
  return (Number(fields[13]) + Number(fields[14])) * TICK_MS;
}

/** CPU time (ms, see ownAndReapedTicks) of the processes `include` picks, by pid. Linux only. */
function cpuByPid(include: (pid: number, command: string) => boolean): Map<number, number> {
  const used = new Map<number, number>();
  for (const stat of allProcStats()) {
    if (include(stat.pid, stat.command)) used.set(stat.pid, ownAndReapedTicks(stat) * TICK_MS);
  }
  return used;
}

/**
 * Starts counting the CPU time PostgreSQL's processes (every backend and helper on this host) and
 * the given processes (`pids` is asked at the start and at the end: they may start in between) use;
 * `stop` returns both in ms. A backend that exits in between moves its whole count to the
 * postmaster's reaped-children count, so the database's total is compared whole.
 */
export function countCpu(pids: () => number[]): () => { databaseMs: number; processesMs: number } {
  const isDatabase = (_pid: number, command: string) => command === "postgres";
  const isOwn = () => {
    const own = new Set(pids());
    return (pid: number) => own.has(pid);
  };
  const databaseBefore = cpuByPid(isDatabase);
  const processesBefore = cpuByPid(isOwn());
  return () => {
    const total = (used: Map<number, number>) => [...used.values()].reduce((sum, ms) => sum + ms, 0);
    const processesAfter = cpuByPid(isOwn());
    let processesMs = 0;
    for (const [pid, ms] of processesAfter) processesMs += ms - (processesBefore.get(pid) ?? 0);
    return { databaseMs: total(cpuByPid(isDatabase)) - total(databaseBefore), processesMs };
  };
}
