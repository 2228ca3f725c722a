import { pendingStep } from "../auth/login";
import { recoveryCodesLeft, twoFactorRequired } from "../auth/two-factor";
import type { UserAccount } from "../auth/users";
import type { AppConfig } from "../config/env";
import type { ConsoleRuntime } from "./console-action";

export type AccountView = {
  email: string;
  role: string;
  /** What the console asks of them before anything else, if anything. */
  pending: ReturnType<typeof pendingStep>;
  twoFactor: boolean;
  /** CONSOLE_REQUIRE_2FA covers their role: two-step sign-in can't be turned off. */
  twoFactorRequired: boolean;
  recoveryCodesLeft: number;
};

/** The user's own account page. */
export async function getAccountView(
  runtime: { config: AppConfig; prisma: ConsoleRuntime["prisma"] },
  user: UserAccount,
): Promise<AccountView> {
  return {
    email: user.email,
    role: user.role,
    pending: pendingStep(runtime.config, user),
    twoFactor: user.twoFactor,
    twoFactorRequired: twoFactorRequired(runtime.config, user.role),
    recoveryCodesLeft: user.twoFactor ? await recoveryCodesLeft(runtime.prisma, user.id) : 0,
  };
}

/** Is the user held at their account page (nothing else in the console to show them yet)? */
export function heldAtAccount(config: AppConfig, user: UserAccount): boolean {
  return pendingStep(config, user) !== null;
}
