import { Secret, TOTP } from "otpauth";

// One-time codes as an authenticator app makes them, from the key the console showed at enrolment.

const STEP_MS = 30_000;

/** The code for `secret` at the current time step, or `offsetSteps` steps from it. */
export const codeFor = (secret: string, offsetSteps = 0): string =>
  new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + offsetSteps * STEP_MS });

/** A 6-digit code that isn't any of the ones the window accepts now. */
export const wrongCodeFor = (secret: string): string => {
  const valid = new Set([-1, 0, 1].map((offset) => codeFor(secret, offset)));
  return ["000000", "111111", "222222", "333333"].find((code) => !valid.has(code))!;
};
