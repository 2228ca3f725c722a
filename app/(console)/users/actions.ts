"use server";

import { runAction } from "@/app/_server/action";
import * as actions from "@/lib/console/user-actions";

export async function createUser(input: unknown) {
  return runAction("createUser", actions.createUser, input);
}

export async function updateUser(input: unknown) {
  return runAction("updateUser", actions.updateUser, input);
}
