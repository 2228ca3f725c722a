import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["lib/**/*.test.ts", "worker/**/*.test.ts", "app/**/*.test.ts", "e2e/**/*.test.ts"],
    exclude: ["e2e/**/*.e2e.test.ts", "node_modules/**"],
    globalSetup: ["lib/testing/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
