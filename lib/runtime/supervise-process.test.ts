import { describe, expect, it } from "vitest";
import { waitFor } from "@/lib/testing/test-worker";
import { restartDelayMs, superviseProcess, type RestartPolicy } from "./supervise-process";

// Real child processes under the launcher's supervisor: a killed child comes back, a crash loop
// backs off, and stop() ends supervision.

const policy: RestartPolicy = { initialDelayMs: 100, maxDelayMs: 800, stableAfterMs: 60_000 };
const quiet = () => undefined;

function supervise(script: string) {
  return superviseProcess({ name: "child", args: ["-e", script], env: process.env, policy, ipc: true, stdio: "pipe", log: quiet });
}

describe("restartDelayMs", () => {
  it("doubles from the initial delay up to the ceiling", () => {
    expect([0, 1, 2, 3, 4, 40].map((n) => restartDelayMs(policy, n))).toEqual([100, 200, 400, 800, 800, 800]);
  });
});

describe("superviseProcess", () => {
  it("restarts a ready child killed with SIGKILL after the initial delay, every time", async () => {
    const child = supervise(`process.send({ type: "ready" }); setInterval(() => {}, 1000);`);
    try {
      for (let kill = 1; kill <= 3; kill++) {
        const pid = await waitFor(async () => child.ready() && child.pid(), 10_000, "a ready child");
        const started = Date.now();
        process.kill(pid, "SIGKILL");
        await waitFor(async () => (child.pid() && child.pid() !== pid ? true : null), 10_000, "the restarted child");
        // A ready child that dies is not a crash loop: back after the initial delay, not a doubled one.
        expect(Date.now() - started).toBeLessThan(policy.initialDelayMs * 2 + 1_000);
        expect(child.restarts()).toBe(kill);
      }
    } finally {
      await child.stop(5_000);
    }
    expect(child.pid()).toBeUndefined();
  });

  it("backs off a child that keeps dying before it is ready", async () => {
    const lines: string[] = [];
    const child = superviseProcess({
      name: "crasher",
      args: ["-e", "process.exit(3)"],
      env: process.env,
      policy,
      stdio: "pipe",
      log: (line) => lines.push(line),
    });
    try {
      await waitFor(async () => child.restarts() >= 4, 20_000, "four restarts");
    } finally {
      await child.stop(5_000);
    }
    const delays = lines.filter((line) => line.includes("restarting it in")).map((line) => line.match(/in ([\d.]+)s/)![1]);
    expect(delays.slice(0, 4)).toEqual(["0.1", "0.2", "0.4", "0.8"]);
    expect(lines[1]).toMatch(/crasher exited \(code 3\)/);
  });
});
