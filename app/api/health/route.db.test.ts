import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";
import { useWebRuntime } from "@/e2e/harness/web-runtime";
import { recordWorkerStart } from "@/lib/inbox/process/worker-heartbeats";

// /api/health through the real route handler public bare answer, details
// for a monitoring token. (The console-session path is covered in e2e/input-safety.e2e.test.ts.)

let app: TestApp;
let GET: (request: NextRequest) => Promise<Response>;
let stopWebRuntime: () => Promise<void>;

beforeAll(async () => {
  app = await createTestApp("health_route");
  stopWebRuntime = useWebRuntime(app, { HEALTH_TOKENS: "old-health-token,new-health-token" });
  ({ GET } = await import("./route"));
  await app.pool.query(
    `INSERT INTO webhook_inbox (provider, event_id, event_type, status, raw_body) VALUES ('stripe', 'h1', 'x', 'failed', '\\x00')`,
  );
  await recordWorkerStart(app.pool, "host:1");
});
afterAll(async () => {
  await stopWebRuntime();
  await app.close();
});

const get = (headers: Record<string, string> = {}) => GET(new NextRequest("http://localhost/api/health", { headers }));

describe("GET /api/health", () => {
  it("answers the public only {status: ok}: no counts, no errors", async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: "Bearer guess" },
      { authorization: "Basic b2xkLWhlYWx0aC10b2tlbg==" },
    ]) {
      const response = await get(headers);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: "ok" });
    }
  });

  it("answers degraded with 200 in public while no worker is alive: monitors see it, a load balancer keeps the web tier", async () => {
    await app.pool.query("TRUNCATE worker_heartbeats");
    try {
      const response = await get();
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: "degraded" });
    } finally {
      await recordWorkerStart(app.pool, "host:1");
    }
  });

  it("gives the details to a HEALTH_TOKENS bearer (either token, for rotation)", async () => {
    for (const token of ["old-health-token", "new-health-token"]) {
      const response = await get({ authorization: `Bearer ${token}` });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ healthy: true, database: { ok: true }, queue: { ok: true }, inbox: { failed: 1 } });
    }
  });
});
