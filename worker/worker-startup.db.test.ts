import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeGatewayEnv } from "@/e2e/simulator/fake-gateway";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";

// A worker configured to refetch a gateway whose API key is missing says so once, at start, in one
// line naming the variable (instead of failing every event with a 401 later).

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp("startup");
});
afterAll(() => app.close());

describe("worker start-up", () => {
  it("prints one line naming a missing refetch credential", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "worker/worker.ts"], {
      // Every other gateway's keys are set (the fake gateway's), so only Asaas's is missing.
      env: {
        ...process.env,
        ...app.env,
        ...fakeGatewayEnv("http://127.0.0.1:9"),
        WEBHOOK_SECRET_ASAAS: "asaas_token",
        ASAAS_API_KEY: "",
        LOG_LEVEL: "info",
        LOG_FORMAT: "json",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const exited = new Promise<number | null>((done) => child.once("exit", done));
    // Wait for the worker to be up (its "worker started" line, logged after the start-up checks).
    const deadline = Date.now() + 60_000;
    while (!output.includes("worker started") && Date.now() < deadline) await new Promise((done) => setTimeout(done, 100));
    expect(output).toContain("worker started");
    child.kill("SIGTERM");
    await exited;
    const lines = output.split("\n").filter((line) => line.includes("ASAAS_API_KEY"));
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as { level: string; component: string; msg: string };
    expect(line).toMatchObject({ level: "warn", component: "worker" });
    expect(line.msg).toMatch(/^refetch for asaas needs ASAAS_API_KEY, which is not set/);
    expect(output).not.toMatch(/STRIPE_API_KEY|ZOOP_MARKETPLACE_ID/);
  }, 90_000);
});
