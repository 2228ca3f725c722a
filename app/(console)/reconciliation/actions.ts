"use server";

import type { z } from "zod";
import { runAction } from "@/app/_server/action";
import * as actions from "@/lib/console/reconciliation-actions";

export async function reconcileGateway(input: z.input<typeof actions.reconcileGateway.schema>) {
  return runAction("reconcileGateway", actions.reconcileGateway, input);
}
