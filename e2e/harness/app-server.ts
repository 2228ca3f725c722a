import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { DEFAULT_WEB_HEAP_LIMIT_MB } from "@/lib/config/env";
import { freePort } from "@/lib/db/embedded";
import { productionWebArgs } from "@/lib/runtime/launch-environment";

// Starts the built app (our web server around Next, as `npm start` runs it) and a real worker process
// against a test database, the way `npm start` does, on a free port. startWebServer starts the web
// server alone (a benchmark measuring what taking webhooks costs, with nothing processing them).

export type AppServer = {
  url: string;
  stop: () => Promise<void>;
  logs: string[];
  /** Process-group leaders (each child leads its own group): for a benchmark's memory readings. */
  pids: { web: number; worker: number };
};

export type WebServer = Omit<AppServer, "pids"> & { pids: { web: number } };

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // gone
      }
    }, 10_000);
    child.once("exit", () => {
      clearTimeout(timer);
      done();
    });
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      done();
    }
  });
}

async function startProcesses(env: Record<string, string>, withWorker: boolean) {
  if (!existsSync(".next/BUILD_ID")) throw new Error("no production build: run `npm run build` first (npm test does)");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const fullEnv: NodeJS.ProcessEnv = { ...process.env, ...env, PORT: String(port), NEXTAUTH_URL: url, ...env, NODE_ENV: "production" };
  const logs: string[] = [];
  const children = [
    spawn(
      process.execPath,
      [...productionWebArgs(Number(fullEnv.WEB_HEAP_LIMIT_MB ?? DEFAULT_WEB_HEAP_LIMIT_MB)), "--hostname", "127.0.0.1"],
      {
        env: fullEnv,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      },
    ),
    ...(withWorker
      ? [
          spawn(process.execPath, ["--import", "tsx", "worker/worker.ts"], {
            env: fullEnv,
            detached: true,
            stdio: ["ignore", "pipe", "pipe"],
          }),
        ]
      : []),
  ];
  for (const child of children) {
    child.stdout?.on("data", (chunk) => logs.push(String(chunk)));
    child.stderr?.on("data", (chunk) => logs.push(String(chunk)));
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    const healthy = await fetch(`${url}/api/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) {
      await Promise.all(children.map(stopChild));
      throw new Error(`the app did not become healthy:\n${logs.join("")}`);
    }
    await new Promise((done) => setTimeout(done, 250));
  }
  return { url, logs, children, stop: async () => void (await Promise.all(children.map(stopChild))) };
}

export async function startAppServer(env: Record<string, string>): Promise<AppServer> {
  const { children, ...server } = await startProcesses(env, true);
  return { ...server, pids: { web: children[0]!.pid!, worker: children[1]!.pid! } };
}

export async function startWebServer(env: Record<string, string>): Promise<WebServer> {
  const { children, ...server } = await startProcesses(env, false);
  return { ...server, pids: { web: children[0]!.pid! } };
}
