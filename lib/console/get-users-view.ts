import { ROLES, type Role } from "../auth/permissions";
import { listUsers, type UserAccount } from "../auth/users";

export type UsersView = { users: UserAccount[]; roles: readonly Role[] };

/** The users page: every account and the roles one may be given. */
export async function getUsersView(prisma: Parameters<typeof listUsers>[0]): Promise<UsersView> {
  return { users: await listUsers(prisma), roles: ROLES };
}
