import { vi } from "vitest";
import { createTestApp, type TestApp } from "@/lib/testing/test-app";
import { startTestWorker, type TestWorker } from "@/lib/testing/test-worker";

/**
 * Points the web runtime (what route handlers use, configured from process.env) at a test app's
 * database, with extra variables. Call before importing a route module; await the returned
 * teardown in afterAll, before the test app closes.
 */
export function useWebRuntime(app: TestApp, env: Record<string, string> = {}): () => Promise<void> {
  for (const [name, value] of Object.entries({ ...app.env, ...env })) vi.stubEnv(name, value);
  return async () => {
    const { webRuntime } = await import("@/lib/runtime/web-runtime");
    const runtime = webRuntime();
    await runtime.closeAccounts();
    await (await runtime.boss()).stop({ graceful: false });
    await runtime.pool.end();
    await runtime.feed.pool.end();
    vi.unstubAllEnvs();
  };
}

export type WebAndWorker = {
  app: TestApp;
  worker: TestWorker;
  /** Posts one webhook to the real ingest route handler. */
  postWebhook: (provider: string, body: string, headers: Record<string, string>) => Promise<Response>;
  close: () => Promise<void>;
};

/** A test database, the web runtime on it (ingest route loaded) and a worker consuming its queue. */
export async function startWebAndWorker(label: string, env: Record<string, string> = {}): Promise<WebAndWorker> {
  const app = await createTestApp(label);
  const stopWebRuntime = useWebRuntime(app, env);
  const { POST } = await import("@/app/api/webhooks/[provider]/route");
  const { NextRequest } = await import("next/server");
  const worker = await startTestWorker(app.db.url, app.config);
  return {
    app,
    worker,
    postWebhook: (provider, body, headers) =>
      POST(new NextRequest(`http://localhost/api/webhooks/${provider}`, { method: "POST", body, headers }), {
        params: Promise.resolve({ provider }),
      }),
    close: async () => {
      await worker.stop();
      await stopWebRuntime();
      await app.close();
    },
  };
}
