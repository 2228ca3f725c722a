import { defineConfig } from "prisma/config";

// The CLI is only used to generate the client (offline). Migrations are applied by `npm run db:migrate`
// (lib/db/migrate.ts), because `prisma migrate deploy` needs a native engine this project cannot download.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost/webhook_inbox" },
});
