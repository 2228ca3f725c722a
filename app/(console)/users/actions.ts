"use server";

import { runAction, type ActionResult } from "@/app/_server/action";
import {
  createUser as createUserRecord,
  createUserSchema,
  updateUser as updateUserRecord,
  updateUserSchema,
  type UserAccount,
} from "@/lib/auth/users";
import { webRuntime } from "@/lib/runtime/web-runtime";

/** Creates a user; a generated password is returned once, to hand over, and never stored in clear. */
export async function createUser(input: unknown): Promise<ActionResult<{ user: UserAccount; password: string | null }>> {
  return runAction("createUser", createUserSchema, input, async (parsed, { user, ip }) => {
    const created = await createUserRecord(webRuntime().prisma, parsed, { name: user.email, userId: user.id, ip });
    return { user: created.user, password: parsed.password ? null : created.password };
  });
}

export async function updateUser(input: unknown): Promise<ActionResult<UserAccount>> {
  return runAction("updateUser", updateUserSchema, input, async (parsed, { user, ip }) =>
    updateUserRecord(webRuntime().prisma, parsed, { name: user.email, userId: user.id, ip }),
  );
}
