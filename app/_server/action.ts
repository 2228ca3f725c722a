import { headers } from "next/headers";
import { z } from "zod";
import { ACTION_ACCESS, type ActionName } from "@/lib/auth/access-table";
import type { UserAccount } from "@/lib/auth/users";
import { asAppError, describeZodError, errorForLog } from "@/lib/errors/app-error";
import { logger } from "@/lib/observability/logger";
import { clientIp } from "./auth";
import { requirePermission } from "./session";

export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: string; code?: string };

/**
 * The one way server actions run: a server action is a public endpoint, so each checks the session
 * and its permission (from the access table), parses its input with zod, and returns a result
 * instead of throwing (errors keep one shape; unexpected ones are logged, not shown).
 */
export async function runAction<Schema extends z.ZodType, T>(
  name: ActionName,
  schema: Schema,
  input: unknown,
  run: (input: z.infer<Schema>, context: { user: UserAccount; ip: string | null }) => Promise<T>,
): Promise<ActionResult<T>> {
  try {
    const user = await requirePermission(ACTION_ACCESS[name]);
    const parsed = schema.parse(input);
    return { ok: true, data: await run(parsed, { user, ip: clientIp(await headers()) }) };
  } catch (error) {
    const known = asAppError(error);
    if (known) return { ok: false, error: known.message, code: known.code };
    if (error instanceof z.ZodError) {
      return { ok: false, error: describeZodError(error), code: "BAD_REQUEST" };
    }
    logger("action", { action: name }).error({ error: errorForLog(error) }, "server action failed");
    return { ok: false, error: "Something went wrong; the error was logged." };
  }
}
