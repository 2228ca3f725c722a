import { readFileSync } from "node:fs";
import { allProcStats } from "../harness/proc-stat";

function rssKb(pid: string | number): number {
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return rss ? Number(rss[1]) : 0;
}

/** Resident memory (MB) of one process. Linux only. */
export function processRssMb(pid: number): number {
  return Math.round(rssKb(pid) / 1024);
}

/** The processes of process group `pgid` (a child spawned detached leads one). Linux only. */
export function groupPids(pgid: number): number[] {
  return allProcStats()
    .filter(({ fields }) => Number(fields[2]) === pgid)
    .map(({ pid }) => pid);
}

/** Resident memory (MB) of every process in process group `pgid`. Linux only. */
export function groupRssMb(pgid: number): number {
  let kb = 0;
  for (const pid of groupPids(pgid)) {
    try {
      kb += rssKb(pid);
    } catch {
      // the process ended while we read it
    }
  }
  return Math.round(kb / 1024);
}
