import { PrismaPg } from "@prisma/adapter-pg";
import type pg from "pg";
import { PrismaClient, type Prisma } from "./generated/client.ts";

export type { PrismaClient };

/** A Prisma client sharing the process's pg pool, so the app holds one set of connections. */
export function createPrisma(pool: pg.Pool): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg(pool) });
}

/**
 * SQL on a Prisma transaction, for a statement another room owns that must commit with it (the
 * audit row of a user change: audit_log is reached with SQL only).
 */
export function sqlOn(tx: Prisma.TransactionClient): { query(text: string, values: unknown[]): Promise<unknown> } {
  return { query: (text, values) => tx.$executeRawUnsafe(text, ...values) };
}
