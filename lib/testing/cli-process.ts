import { spawnSync } from "node:child_process";

/**
 * Runs the operator CLI the way operators do (`npm run cli` is worker/cli.ts), as a process with
 * `env` over this one's; its exit code and its output, stdout then stderr.
 */
export function runCli(env: Record<string, string>, args: string[]): { code: number | null; out: string } {
  const result = spawnSync(process.execPath, ["--import", "tsx", "worker/cli.ts", ...args], {
    env: { ...process.env, ...env },
    encoding: "utf8",
  });
  return { code: result.status, out: result.stdout + result.stderr };
}
