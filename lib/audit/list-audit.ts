import type { PrismaClient } from "../db/prisma";

export type AuditRow = { id: number; at: Date; actor: string; action: string; ip: string | null; details: unknown };

/** The audit log newest first, keyset-paginated by id (`before` = the last id of the previous page). */
export async function listAudit(
  prisma: PrismaClient,
  options: { before?: number; action?: string; limit?: number } = {},
): Promise<{ rows: AuditRow[]; nextBefore: number | null }> {
  const limit = Math.min(options.limit ?? 100, 500);
  const rows = await prisma.auditLog.findMany({
    where: {
      ...(options.before ? { id: { lt: BigInt(options.before) } } : {}),
      ...(options.action ? { action: options.action } : {}),
    },
    orderBy: { id: "desc" },
    take: limit + 1,
  });
  const page = rows.slice(0, limit).map((row) => ({ ...row, id: Number(row.id) }));
  return { rows: page, nextBefore: rows.length > limit ? page.at(-1)!.id : null };
}
