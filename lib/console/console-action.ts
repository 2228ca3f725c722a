import type { z } from "zod";
import type { UserAccount } from "../auth/users";
import type { listUsers } from "../auth/users";
import type { AppConfig } from "../config/env";
import type { Pool } from "../db/pool";
import type { GatewayClients } from "../http/gateway-clients";
import type { PgBoss } from "../queue/boss";

/**
 * What the console's actions use of the web process. lib/runtime's WebRuntime is one; lib/console
 * sits below lib/runtime, so the action's caller hands it in.
 */
export type ConsoleRuntime = {
  config: AppConfig;
  pool: Pool;
  /** The job producer, started on first use. */
  boss: () => Promise<PgBoss>;
  gateways: GatewayClients;
  prisma: Parameters<typeof listUsers>[0];
};

/** Who acts: the signed-in user and the address the request came from (for the audit log). */
export type ConsoleActor = { user: UserAccount; ip: string | null };

/**
 * A console action: the schema its input is parsed with (at the edge, after the session and the
 * permission are checked) and what it does with the parsed input.
 */
export type ConsoleAction<Schema extends z.ZodType, Result> = {
  schema: Schema;
  run: (runtime: ConsoleRuntime, input: z.infer<Schema>, actor: ConsoleActor) => Promise<Result>;
};

export function consoleAction<Schema extends z.ZodType, Result>(
  schema: Schema,
  run: ConsoleAction<Schema, Result>["run"],
): ConsoleAction<Schema, Result> {
  return { schema, run };
}
