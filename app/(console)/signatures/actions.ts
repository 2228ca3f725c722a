"use server";

import { runAction } from "@/app/_server/action";
import * as actions from "@/lib/console/signature-actions";

export async function debugSignature(input: unknown) {
  return runAction("debugSignature", actions.debugSignature, input);
}
