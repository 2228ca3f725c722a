import { spawn, spawnSync } from "node:child_process";

/**
 * Runs the operator CLI the way operators do (`npm run cli` is worker/cli.ts), as a process with
 * `env` over this one's and `input` on its standard input; its exit code, its output (stdout then
 * stderr) and its stdout alone.
 */
export function runCli(env: Record<string, string>, args: string[], input = ""): { code: number | null; out: string; stdout: string } {
  const result = spawnSync(process.execPath, ["--import", "tsx", "worker/cli.ts", ...args], {
    env: { ...process.env, ...env },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    input,
  });
  return { code: result.status, out: result.stdout + result.stderr, stdout: result.stdout };
}

/**
 * Runs a TypeScript entry point (`worker/cli.ts`, `e2e/simulator/cli.ts`) as a process with `env`
 * over this one's, without blocking this one (its servers keep answering); its exit code and output
 * as it came, stdout and stderr interleaved.
 */
export function runScript(script: string, args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ["--import", "tsx", script, ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += String(chunk)));
    child.stderr.on("data", (chunk) => (output += String(chunk)));
    child.on("exit", (code) => done({ code: code ?? 1, output }));
  });
}
