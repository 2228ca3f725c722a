import { z } from "zod";
import { asActor, recordAudit, type Actor } from "../audit/record-audit";
import { sqlOn, type PrismaClient } from "../db/prisma";
import { AppError } from "../errors/app-error";
import { generatePassword, hashPassword, MIN_PASSWORD_LENGTH } from "./password";
import { ROLES, type Role } from "./permissions";

/**
 * What of a user leaves lib/auth: never the password hash, the one-time code secret (or any column
 * added later) by accident. `mustChangePassword`: their password was generated for them;
 * `twoFactor`: they sign in with a one-time code too.
 */
export type UserAccount = {
  id: number;
  email: string;
  name: string | null;
  role: Role;
  createdAt: Date;
  disabledAt: Date | null;
  mustChangePassword: boolean;
  twoFactor: boolean;
};

export const createUserSchema = z.object({
  email: z
    .email()
    .max(320)
    .transform((value) => value.toLowerCase()),
  role: z.enum(ROLES),
  name: z.string().max(200).optional(),
  password: z.string().min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`).max(200).optional(),
});
export type CreateUserInput = z.input<typeof createUserSchema>;

export const updateUserSchema = z.object({
  id: z.coerce.number().int().positive(),
  role: z.enum(ROLES).optional(),
  disabled: z.boolean().optional(),
});

// Field by field, not a spread of the row: a row carries password_hash.
function accountOf(user: {
  id: bigint;
  email: string;
  name: string | null;
  role: string;
  createdAt: Date;
  disabledAt: Date | null;
  mustChangePassword: boolean;
  totpEnabledAt: Date | null;
}): UserAccount {
  return {
    id: Number(user.id),
    email: user.email,
    name: user.name,
    role: user.role as Role,
    createdAt: user.createdAt,
    disabledAt: user.disabledAt,
    mustChangePassword: user.mustChangePassword,
    twoFactor: user.totpEnabledAt !== null,
  };
}

/** Prisma's unique-constraint violation: a concurrent request inserted the same key first. */
function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2002";
}

/**
 * Creates a user; without a password, one is generated and returned (shown once, never stored), and
 * the user must replace it before using the console.
 */
export async function createUser(
  prisma: PrismaClient,
  input: CreateUserInput,
  by: string | Actor,
  options: { mustChangePassword?: boolean; oidcIdentity?: { issuer: string; subject: string } } = {},
): Promise<{ user: UserAccount; password: string }> {
  const parsed = createUserSchema.parse(input);
  const actor = asActor(by);
  const password = parsed.password ?? generatePassword();
  const mustChangePassword = options.mustChangePassword ?? !parsed.password;
  const passwordHash = await hashPassword(password);
  const conflict = new AppError("CONFLICT", `a user with e-mail ${parsed.email} already exists`);
  if (await prisma.user.findUnique({ where: { email: parsed.email }, select: { id: true } })) throw conflict;
  try {
    const user = await prisma.$transaction(async (tx) => {
      const created = await tx.user.create({
        data: {
          email: parsed.email,
          role: parsed.role,
          name: parsed.name,
          passwordHash,
          mustChangePassword,
          oidcIssuer: options.oidcIdentity?.issuer,
          oidcSubject: options.oidcIdentity?.subject,
        },
      });
      await recordAudit(sqlOn(tx), {
        actor: actor.name,
        action: "user_created",
        ip: actor.ip,
        details: { email: parsed.email, role: parsed.role, ...(options.oidcIdentity ? { oidcSubject: options.oidcIdentity.subject } : {}) },
      });
      return created;
    });
    return { user: accountOf(user), password };
  } catch (error) {
    // Two creations of one e-mail at once both pass the check above; the unique index decides.
    if (isUniqueViolation(error)) throw conflict;
    throw error;
  }
}

/**
 * Changes a user's role or disables/enables them. The last active admin can't be demoted or disabled,
 * and no one disables themselves. The active admins' rows are locked first: two admins demoting each
 * other at once are serialized, and the second sees the first's change and is refused.
 */
export async function updateUser(prisma: PrismaClient, input: z.input<typeof updateUserSchema>, by: string | Actor): Promise<UserAccount> {
  const { id, role, disabled } = updateUserSchema.parse(input);
  const actor = asActor(by);
  if (disabled === true && actor.userId === id) throw new AppError("CONFLICT", "you can't disable your own account: ask another admin");
  return prisma.$transaction(async (tx) => {
    const admins = await tx.$queryRaw<
      { id: bigint }[]
    >`SELECT id FROM users WHERE role = 'admin' AND disabled_at IS NULL ORDER BY id FOR UPDATE`;
    const user = await tx.user.findUnique({ where: { id: BigInt(id) } });
    if (!user) throw new AppError("NOT_FOUND", "no such user");
    const losesAdmin = user.role === "admin" && !user.disabledAt && ((role && role !== "admin") || disabled === true);
    if (losesAdmin && admins.length <= 1) throw new AppError("CONFLICT", "this is the last active admin: add another admin first");
    const changesAccess = (role !== undefined && role !== user.role) || (disabled !== undefined && disabled !== !!user.disabledAt);
    const updated = await tx.user.update({
      where: { id: user.id },
      data: {
        ...(role ? { role } : {}),
        ...(disabled === undefined ? {} : { disabledAt: disabled ? (user.disabledAt ?? new Date()) : null }),
        // Sessions signed in under the old role (or before the account was disabled) end now.
        ...(changesAccess ? { sessionVersion: { increment: 1 } } : {}),
      },
    });
    await recordAudit(sqlOn(tx), {
      actor: actor.name,
      action: "user_updated",
      ip: actor.ip,
      details: { email: user.email, role, previousRole: user.role, disabled, previouslyDisabled: user.disabledAt !== null },
    });
    return accountOf(updated);
  });
}

export async function listUsers(prisma: PrismaClient): Promise<UserAccount[]> {
  const users = await prisma.user.findMany({ orderBy: { email: "asc" } });
  return users.map(accountOf);
}

/**
 * The signed-in user as the database has them now (a disabled or deleted user is no one). With a
 * session version, a session issued before the last sign-out, password reset or access change is no
 * one either.
 */
export async function findActiveUser(prisma: PrismaClient, id: number, sessionVersion?: number): Promise<UserAccount | null> {
  const user = await prisma.user.findUnique({ where: { id: BigInt(id) } });
  if (!user || user.disabledAt) return null;
  if (sessionVersion !== undefined && user.sessionVersion !== sessionVersion) return null;
  return accountOf(user);
}

/**
 * Is a session token still good: its user active, its version current (no sign-out, reset or access
 * change since) and younger than `maxAgeSeconds` since sign-in, however often it was refreshed?
 * Tokens from before sign-in times were recorded count as ended.
 */
export async function sessionStillValid(
  prisma: PrismaClient,
  token: { userId: number; sessionVersion: unknown; signedInAt: unknown },
  maxAgeSeconds: number,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<boolean> {
  const { userId, sessionVersion, signedInAt } = token;
  if (!Number.isInteger(userId) || userId <= 0 || typeof sessionVersion !== "number" || typeof signedInAt !== "number") return false;
  if (nowSeconds - signedInAt >= maxAgeSeconds) return false;
  return (await findActiveUser(prisma, userId, sessionVersion)) !== null;
}

/** The version a new session of this user carries. */
export async function currentSessionVersion(prisma: PrismaClient, id: number): Promise<number | null> {
  const user = await prisma.user.findUnique({ where: { id: BigInt(id) }, select: { sessionVersion: true } });
  return user?.sessionVersion ?? null;
}

/**
 * Ends every other session of a user: the version moves on from the one the asking session carries
 * (so a session already ended can't use this to come back) and the asking session is handed the new
 * one. Returns it, or null when the asking session is no longer current.
 */
export async function endOtherSessions(
  prisma: PrismaClient,
  id: number,
  sessionVersion: number,
  ip: string | null,
): Promise<number | null> {
  return prisma.$transaction(async (tx) => {
    const rows = await tx.$queryRaw<{ email: string; session_version: number }[]>`
      UPDATE users SET session_version = session_version + 1
       WHERE id = ${BigInt(id)} AND session_version = ${sessionVersion} AND disabled_at IS NULL
      RETURNING email, session_version`;
    const row = rows[0];
    if (!row) return null;
    await recordAudit(sqlOn(tx), { actor: row.email, action: "other_sessions_ended", ip });
    return row.session_version;
  });
}

/** Ends every session of a user (sign-out ends them on every device). */
export async function endSessions(prisma: PrismaClient, id: number): Promise<void> {
  await prisma.user.updateMany({ where: { id: BigInt(id) }, data: { sessionVersion: { increment: 1 } } });
}

/**
 * Gives a user a new generated password (returned once, to hand over, and to be replaced at their
 * next sign-in), ends their sessions and audits it: the way back in for someone who lost theirs.
 */
export async function resetPassword(prisma: PrismaClient, email: string, actor: string): Promise<{ user: UserAccount; password: string }> {
  const address = z.email().max(320).parse(email.trim()).toLowerCase();
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  return prisma.$transaction(async (tx) => {
    const found = await tx.user.findUnique({ where: { email: address } });
    if (!found) throw new AppError("NOT_FOUND", `no user with e-mail ${address}`);
    const user = await tx.user.update({
      where: { id: found.id },
      data: { passwordHash, mustChangePassword: true, sessionVersion: { increment: 1 } },
    });
    await recordAudit(sqlOn(tx), { actor, action: "password_reset", details: { email: address } });
    return { user: accountOf(user), password };
  });
}

/**
 * On a database with no users, creates the demo admin and returns its one-time credentials. Only
 * `npm run dev` does (a local trial on development values), so its password needn't be changed first.
 */
export async function ensureDemoAdmin(prisma: PrismaClient, email: string): Promise<{ email: string; password: string } | null> {
  if ((await prisma.user.count()) > 0) return null;
  const { password } = await createUser(prisma, { email, role: "admin", name: "Demo admin" }, "system", { mustChangePassword: false });
  return { email, password };
}
