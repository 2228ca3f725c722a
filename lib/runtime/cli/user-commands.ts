import { z } from "zod";
import { unlinkOidcIdentity } from "../../auth/oidc-sign-in";
import { disableTwoFactor } from "../../auth/two-factor";
import { createUser, resetPassword, type CreateUserInput } from "../../auth/users";
import { cliActor, command, option } from "./cli-command";

// Console users; their fields are checked by lib/auth, as the Users page's are.

export const createUserCommand = command({
  name: "user:create",
  summary: "add a console user",
  options: z.object({
    email: option(z.string().optional(), { arg: "E" }),
    role: option(z.string().optional(), { arg: "R", help: "R: viewer, support, finance or admin" }),
    name: option(z.string().optional(), { arg: "N", help: "optional display name" }),
    password: option(z.string().optional(), {
      arg: "P",
      help: "optional (12+ characters); without it one is generated and printed once",
    }),
  }),
  run: async (runtime, values) => {
    const { user, password } = await createUser(
      runtime.prisma(),
      { email: values.email ?? "", role: values.role as CreateUserInput["role"], name: values.name, password: values.password },
      cliActor(),
    );
    console.log(
      `created ${user.role} ${user.email}${values.password ? "" : ` with password: ${password} (to be changed at first sign-in)`}`,
    );
    return 0;
  },
});

export const resetPasswordCommand = command({
  name: "user:reset-password",
  summary: "give a user a new generated password (printed once) and end their sessions",
  options: z.object({ email: option(z.string().optional(), { arg: "E" }) }),
  run: async (runtime, values) => {
    const { user, password } = await resetPassword(runtime.prisma(), values.email ?? "", cliActor());
    console.log(`new password for ${user.email}: ${password}`);
    console.log("(shown once, to be changed at their next sign-in; their sessions have been signed out)");
    return 0;
  },
});

export const resetTwoFactorCommand = command({
  name: "user:reset-2fa",
  summary: "turn off a user's two-step sign-in (lost phone and recovery codes); they enrol again if required",
  options: z.object({ email: option(z.string().optional(), { arg: "E" }) }),
  run: async (runtime, values) => {
    const deps = { prisma: runtime.prisma(), pool: runtime.pool(), config: runtime.config };
    const { email } = await disableTwoFactor(deps, { email: values.email ?? "" }, { name: cliActor() });
    console.log(`two-step sign-in is off for ${email}`);
    return 0;
  },
});

export const unlinkSsoCommand = command({
  name: "user:unlink-sso",
  summary: "forget the single sign-on identity linked to a user (their next sign-in links by verified e-mail again); ends their sessions",
  options: z.object({ email: option(z.string().optional(), { arg: "E" }) }),
  run: async (runtime, values) => {
    const { email, subject } = await unlinkOidcIdentity(runtime.prisma(), values.email ?? "", cliActor());
    console.log(`${email} is no longer linked to subject ${subject}; their sessions have been signed out`);
    return 0;
  },
});
