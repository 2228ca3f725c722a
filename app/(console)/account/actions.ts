"use server";

import { runAction } from "@/app/_server/action";
import * as actions from "@/lib/console/account-actions";

export async function changePassword(input: unknown) {
  return runAction("changePassword", actions.changePassword, input);
}

export async function startTwoFactorEnrolment(input: unknown) {
  return runAction("startTwoFactorEnrolment", actions.startTwoFactorEnrolment, input);
}

export async function confirmTwoFactorEnrolment(input: unknown) {
  return runAction("confirmTwoFactorEnrolment", actions.confirmTwoFactorEnrolment, input);
}

export async function disableTwoFactor(input: unknown) {
  return runAction("disableTwoFactor", actions.disableTwoFactor, input);
}
