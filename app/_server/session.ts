import { getServerSession } from "next-auth";
import { forbidden, redirect } from "next/navigation";
import { PAGE_ACCESS, ROUTE_ACCESS, type ConsoleRoute, type PageRoute } from "@/lib/auth/access-table";
import { pendingStep } from "@/lib/auth/login";
import { can, type Permission } from "@/lib/auth/permissions";
import { findActiveUser, type UserAccount } from "@/lib/auth/users";
import { AppError } from "@/lib/errors/app-error";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { authOptions } from "./auth";

/**
 * The signed-in user, read from the database on every request: sign-out, a password reset, a role
 * change or a disabled account take effect at once (the token's session version no longer matches),
 * not when the token expires.
 */
export async function currentUser(): Promise<UserAccount | null> {
  const session = await getServerSession(authOptions());
  const id = Number(session?.user?.id);
  const version = session?.user?.sessionVersion;
  // A token without a version predates session versions: treat it as signed out.
  if (!Number.isInteger(id) || id <= 0 || typeof version !== "number") return null;
  return findActiveUser(webRuntime().prisma, id, version);
}

/**
 * Is the user held at their account page (a generated password to replace, enrolment the policy
 * requires)? Then only their own account ("account.own") is theirs.
 */
function heldBack(user: UserAccount, permission: Permission): boolean {
  return permission !== "account.own" && pendingStep(webRuntime().config, user) !== null;
}

/** May this signed-in user use `permission` now (their role grants it, no pending step holds them back)? */
export function mayUse(user: UserAccount, permission: Permission): boolean {
  return can(user.role, permission) && !heldBack(user, permission);
}

/**
 * For pages: signed out -> /login; a pending step -> /account; signed in without the page's
 * permission (PAGE_ACCESS) -> the 403 page.
 */
export async function requirePageAccess(page: PageRoute): Promise<UserAccount> {
  const user = await currentUser();
  if (!user) redirect("/login");
  if (heldBack(user, PAGE_ACCESS[page])) redirect("/account");
  if (!can(user.role, PAGE_ACCESS[page])) forbidden();
  return user;
}

/** For route handlers and server actions: throws 401/403 as AppError. */
export async function requirePermission(permission: Permission): Promise<UserAccount> {
  const user = await currentUser();
  if (!user) throw new AppError("UNAUTHORIZED", "sign in first");
  if (heldBack(user, permission)) throw new AppError("FORBIDDEN", "finish setting up your account first (your account page)");
  if (!can(user.role, permission)) throw new AppError("FORBIDDEN", `your role (${user.role}) may not do this (${permission})`);
  return user;
}

/** For the console's route handlers: requirePermission with the route's entry in ROUTE_ACCESS. */
export function requireRouteAccess(route: ConsoleRoute): Promise<UserAccount> {
  return requirePermission(ROUTE_ACCESS[route]);
}
