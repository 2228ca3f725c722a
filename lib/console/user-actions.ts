import { createUser as createUserRecord, createUserSchema, updateUser as updateUserRecord, updateUserSchema } from "../auth/users";
import { consoleAction } from "./console-action";

/** Creates a user; a generated password is returned once, to hand over, and never stored in clear. */
export const createUser = consoleAction(createUserSchema, async ({ prisma }, input, { user, ip }) => {
  const created = await createUserRecord(prisma, input, { name: user.email, userId: user.id, ip });
  return { user: created.user, password: input.password ? null : created.password };
});

export const updateUser = consoleAction(updateUserSchema, async ({ prisma }, input, { user, ip }) =>
  updateUserRecord(prisma, input, { name: user.email, userId: user.id, ip }),
);
