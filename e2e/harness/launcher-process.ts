import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { freePort } from "@/lib/db/embedded";
import { waitFor } from "@/lib/testing/test-worker";

// `npm start` as an operator runs it: the real launcher (worker/launcher.ts start) supervising the
// built web server and a worker, on a database the test gives it. Its output (and its children's)
// is kept, and read for the pids it reports.

export type LauncherProcess = {
  url: string;
  logs: () => string;
  /** The pid of the worker that last logged it started consuming (ready), if it still runs. */
  readyWorkerPid: () => number | undefined;
  /** Pids of the web server and worker as last started by the launcher. */
  childPids: () => { web?: number; worker?: number };
  launcherRunning: () => boolean;
  stop: () => Promise<void>;
};

export function isRunning(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startLauncher(env: Record<string, string>): Promise<LauncherProcess> {
  if (!existsSync(".next/BUILD_ID")) throw new Error("no production build: run `npm run build` first (npm test does)");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ["--import", "tsx", "worker/launcher.ts", "start"], {
    env: { ...process.env, ...env, PORT: String(port), NEXTAUTH_URL: url, NODE_ENV: "production" },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk) => (output += String(chunk)));
  child.stderr.on("data", (chunk) => (output += String(chunk)));
  let exited = false;
  child.once("exit", () => (exited = true));

  const lastMatch = (pattern: RegExp): number | undefined => {
    const all = [...output.matchAll(pattern)];
    const last = all[all.length - 1];
    return last ? Number(last[1]) : undefined;
  };
  const launcher: LauncherProcess = {
    url,
    logs: () => output,
    readyWorkerPid: () => {
      // The worker's JSON line once it consumes: {"workerId":"host:pid",...,"msg":"worker started"}.
      const pid = lastMatch(/"workerId":"[^"]*:(\d+)"[^\n]*"msg":"worker started"/g);
      return isRunning(pid) ? pid : undefined;
    },
    childPids: () => ({
      web: lastMatch(/\[launcher\] web started \(pid (\d+)\)/g),
      worker: lastMatch(/\[launcher\] worker started \(pid (\d+)\)/g),
    }),
    launcherRunning: () => !exited,
    stop: async () => {
      if (exited) return;
      const done = new Promise((resolve) => child.once("exit", resolve));
      process.kill(-child.pid!, "SIGTERM");
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          // gone
        }
      }, 40_000);
      await done;
      clearTimeout(timer);
    },
  };
  try {
    await waitFor(
      async () =>
        exited ? Promise.reject(new Error(`the launcher exited:\n${output}`)) : launcher.readyWorkerPid() && (await healthy(url)),
      90_000,
      "the launched app to be healthy with a worker ready",
    );
  } catch (error) {
    await launcher.stop();
    throw error;
  }
  return launcher;
}

async function healthy(url: string): Promise<boolean> {
  return fetch(`${url}/api/health`).then(
    (response) => response.ok,
    () => false,
  );
}
