import { readdirSync, readFileSync } from "node:fs";

/**
 * A process as Linux's /proc/<pid>/stat describes it: its command, and the fields after the
 * parenthesised command, from state (field 3 of proc(5)) on: `fields[1]` is the parent pid,
 * `fields[2]` the process group, `fields[11..14]` utime, stime, cutime and cstime in clock ticks.
 */
export type ProcStat = { pid: number; command: string; fields: string[] };

/** One process's stat; throws if it has ended. */
export function procStat(pid: number | "self"): ProcStat {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const close = stat.lastIndexOf(")");
  return {
    pid: Number(stat.slice(0, stat.indexOf(" "))),
    command: stat.slice(stat.indexOf("(") + 1, close),
    fields: stat.slice(close + 2).split(" "),
  };
}

/** Every running process's stat (those that end while being read are left out). */
export function allProcStats(): ProcStat[] {
  const stats: ProcStat[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      stats.push(procStat(Number(entry)));
    } catch {
      // the process ended while we read it
    }
  }
  return stats;
}
