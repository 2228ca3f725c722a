"use server";

import { runAction, type ActionResult } from "@/app/_server/action";
import { debugInputSchema, diagnoseSignature, type Diagnosis } from "@/lib/providers/signature-debugger";
import { webRuntime } from "@/lib/runtime/web-runtime";

/** Says what is wrong with a signature: header, secret, encoding, algorithm, signed content or timestamp (input: a scheme's form, parsed here). */
export async function debugSignature(input: unknown): Promise<ActionResult<Diagnosis>> {
  return runAction("debugSignature", debugInputSchema, input, async (parsed) =>
    diagnoseSignature(parsed, Math.floor(Date.now() / 1000), webRuntime().config.toleranceSeconds),
  );
}
