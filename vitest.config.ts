import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["lib/**/*.test.ts", "worker/**/*.test.ts", "app/**/*.test.ts", "e2e/**/*.test.ts"],
    exclude: ["e2e/**/*.e2e.test.ts", "node_modules/**"],
    globalSetup: ["lib/testing/global-setup.ts"],
    testTimeout: 60_000,
    // Tests that read log lines configure their own logger; the rest keep the output short.
    env: { LOG_LEVEL: "warn" },
    hookTimeout: 120_000,
  },
});
