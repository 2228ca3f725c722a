import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The browser suite: a built app (`npm run build`) served by `next start`, a real worker process
// and Debian's Chromium driven by playwright-core. Run by `npm test` after the unit suite.
export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["e2e/**/*.e2e.test.ts"],
    globalSetup: ["lib/testing/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 240_000,
  },
});
