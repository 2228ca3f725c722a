import { vi } from "vitest";
import type { TestApp } from "./test-app";

/**
 * Points the web runtime (what route handlers use, configured from process.env) at a test app's
 * database, with extra variables. Call before importing a route module; await the returned
 * teardown in afterAll, before the test app closes.
 */
export function useWebRuntime(app: TestApp, env: Record<string, string> = {}): () => Promise<void> {
  for (const [name, value] of Object.entries({ ...app.env, ...env })) vi.stubEnv(name, value);
  return async () => {
    const { webRuntime } = await import("../runtime/web-runtime");
    const runtime = webRuntime();
    await (await runtime.boss()).stop({ graceful: false });
    await runtime.pool.end();
    vi.unstubAllEnvs();
  };
}
