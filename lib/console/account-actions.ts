import QRCode from "qrcode";
import { z } from "zod";
import { changePassword as changePasswordRecord, changePasswordSchema } from "../auth/login";
import { confirmEnrolment, disableTwoFactor as disableTwoFactorRecord, startEnrolment } from "../auth/two-factor";
import { consoleAction } from "./console-action";

// The signed-in user's own account: their password and their one-time codes.

/** Sets the user's own password; every session of theirs ends, this one too. */
export const changePassword = consoleAction(changePasswordSchema, async (runtime, input, { user, ip }) =>
  changePasswordRecord(runtime, input, { name: user.email, userId: user.id, ip }),
);

/** A new secret to scan (as a QR code) or type: shown this once, in use after a code confirms it. */
export const startTwoFactorEnrolment = consoleAction(z.object({}), async (runtime, _input, { user }) => {
  const { uri, secret } = await startEnrolment(runtime, user.id);
  const qrSvg = await QRCode.toString(uri, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
  return { uri, secret, qrDataUrl: `data:image/svg+xml;base64,${Buffer.from(qrSvg).toString("base64")}` };
});

const codeInput = z.object({ code: z.string().min(1, "the code from your app").max(64) });

/** Turns two-step sign-in on; the recovery codes are returned this once. */
export const confirmTwoFactorEnrolment = consoleAction(codeInput, async (runtime, { code }, { user, ip }) =>
  confirmEnrolment(runtime, user.id, code, { name: user.email, userId: user.id, ip }),
);

/** Turns two-step sign-in off, with a current code (or a recovery code). */
export const disableTwoFactor = consoleAction(codeInput, async (runtime, { code }, { user, ip }) =>
  disableTwoFactorRecord(runtime, { userId: user.id }, { name: user.email, userId: user.id, ip }, code),
);
