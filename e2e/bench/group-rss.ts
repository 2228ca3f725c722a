import { readdirSync, readFileSync } from "node:fs";

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
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the parenthesised command: state ppid pgrp ...
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) === pgid) pids.push(Number(entry));
    } catch {
      // the process ended while we read it
    }
  }
  return pids;
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
