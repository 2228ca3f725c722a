import { spawn, type ChildProcess } from "node:child_process";

// Keeps one child process running: the launcher's web server and worker are each supervised on
// their own, so one dying never stops the other (separate bulkheads). A child that exits is
// restarted after a delay that doubles while it keeps dying young (a crash loop: bad config, no
// database) and starts small again once a run has lasted, or the child said it was ready.

export type RestartPolicy = {
  /** Delay before the first restart after a run that lasted. */
  initialDelayMs: number;
  /** Ceiling of the doubling delay. */
  maxDelayMs: number;
  /** A run this long counts as healthy, like a "ready" message: the delay starts small again. */
  stableAfterMs: number;
};

export const DEFAULT_RESTART_POLICY: RestartPolicy = { initialDelayMs: 1_000, maxDelayMs: 30_000, stableAfterMs: 30_000 };

export type SupervisedProcess = {
  readonly name: string;
  /** The running child's pid (undefined between a crash and its restart). */
  pid: () => number | undefined;
  restarts: () => number;
  /** Whether the running child has said it is ready (IPC children only). */
  ready: () => boolean;
  /** Stops supervising: SIGTERM to the child's process group, SIGKILL after `graceMs`. */
  stop: (graceMs?: number) => Promise<void>;
};

export type SuperviseOptions = {
  name: string;
  /** Arguments to this Node binary (process.execPath). */
  args: string[];
  env: NodeJS.ProcessEnv;
  policy?: RestartPolicy;
  /** Opens an IPC channel so the child can send `{ type: "ready" }` (the worker does). */
  ipc?: boolean;
  /** Where child output goes (inherit: this terminal; pipe: read it from onSpawn's child). */
  stdio?: "inherit" | "pipe";
  onSpawn?: (child: ChildProcess) => void;
  log?: (line: string) => void;
};

export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid) process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

export function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((done) => {
    const timer = setTimeout(() => done(false), ms);
    child.once("exit", () => {
      clearTimeout(timer);
      done(true);
    });
  });
}

/** The delay before restart number `consecutive` (0-based) of a crash loop. */
export function restartDelayMs(policy: RestartPolicy, consecutive: number): number {
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.min(consecutive, 30));
}

export function superviseProcess(options: SuperviseOptions): SupervisedProcess {
  const policy = options.policy ?? DEFAULT_RESTART_POLICY;
  const log = options.log ?? ((line: string) => console.error(line));
  let child: ChildProcess | undefined;
  let stopped = false;
  let restarts = 0;
  let consecutive = 0;
  let timer: NodeJS.Timeout | undefined;
  let ready = false;

  const start = () => {
    timer = undefined;
    const startedAt = Date.now();
    ready = false;
    const io = options.stdio ?? "inherit";
    // Its own process group, so a signal reaches its grandchildren too (next-server).
    const current = spawn(process.execPath, options.args, {
      stdio: options.ipc ? [io, io, io, "ipc"] : [io, io, io],
      env: options.env,
      detached: true,
    });
    child = current;
    current.on("message", (message) => {
      if ((message as { type?: unknown }).type === "ready" && child === current) ready = true;
    });
    current.on("error", (error) => log(`[launcher] ${options.name}: ${error.message}`));
    current.on("exit", (code, signal) => {
      const wasReady = ready;
      if (child === current) {
        child = undefined;
        ready = false;
      }
      if (stopped) return;
      const ranMs = Date.now() - startedAt;
      if (wasReady || ranMs >= policy.stableAfterMs) consecutive = 0;
      const delay = restartDelayMs(policy, consecutive);
      consecutive += 1;
      restarts += 1;
      log(
        `[launcher] ${options.name} exited (${signal ?? `code ${code}`}) after ${(ranMs / 1000).toFixed(1)}s; ` +
          `restarting it in ${(delay / 1000).toFixed(1)}s (the other process keeps running)`,
      );
      timer = setTimeout(start, delay);
    });
    log(`[launcher] ${options.name} started (pid ${current.pid})`);
    options.onSpawn?.(current);
  };
  start();

  return {
    name: options.name,
    pid: () => child?.pid,
    restarts: () => restarts,
    ready: () => ready,
    stop: async (graceMs = 35_000) => {
      stopped = true;
      if (timer) clearTimeout(timer);
      const current = child;
      if (!current) return;
      signalGroup(current, "SIGTERM");
      if (!(await waitForExit(current, graceMs))) {
        log(`[launcher] ${options.name} did not stop in time; killing it`);
        signalGroup(current, "SIGKILL");
        await waitForExit(current, 5_000);
      }
    },
  };
}
