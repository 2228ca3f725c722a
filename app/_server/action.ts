import { headers } from "next/headers";
import { z } from "zod";
import { ACTION_ACCESS, type ActionName } from "@/lib/auth/access-table";
import type { ConsoleAction } from "@/lib/console/console-action";
import { asAppError, describeZodError, errorForLog } from "@/lib/errors/app-error";
import { logger } from "@/lib/observability/logger";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { clientIp } from "./auth";
import { requirePermission } from "./session";

export type ActionResult<T> = { ok: true; data: T } | { ok: false; error: string; code?: string };

/**
 * The one way server actions run: a server action is a public endpoint, so each checks the session
 * and its permission (from the access table), parses its input with the action's zod schema, runs
 * the lib/console action on the web process, and returns a result instead of throwing (errors keep
 * one shape; unexpected ones are logged, not shown).
 */
export async function runAction<Schema extends z.ZodType, T>(
  name: ActionName,
  action: ConsoleAction<Schema, T>,
  input: unknown,
): Promise<ActionResult<T>> {
  try {
    const user = await requirePermission(ACTION_ACCESS[name]);
    const parsed = action.schema.parse(input);
    return { ok: true, data: await action.run(webRuntime(), parsed, { user, ip: clientIp(await headers()) }) };
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
