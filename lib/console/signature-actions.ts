import { debugInputSchema, diagnoseSignature } from "../providers/signature-debugger";
import { consoleAction } from "./console-action";

/** Says what is wrong with a signature: header, secret, encoding, algorithm, signed content or timestamp (input: a scheme's form). */
export const debugSignature = consoleAction(debugInputSchema, async ({ config }, input) =>
  diagnoseSignature(input, Math.floor(Date.now() / 1000), config.toleranceSeconds),
);
