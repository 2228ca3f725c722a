// The error codes sign-in hands the login page (next-auth puts them in the URL, so nothing else may
// get there), and what the page says for each.

export const SIGN_IN_ERRORS = {
  rateLimited: "RateLimited",
  unavailable: "Unavailable",
  codeRequired: "CodeRequired",
  wrongCode: "WrongCode",
} as const;

export function signInErrorMessage(error: string | null): string | null {
  if (!error) return null;
  if (error === SIGN_IN_ERRORS.rateLimited) return "Too many sign-ins. Wait a few minutes and try again.";
  if (error === SIGN_IN_ERRORS.unavailable) return "Sign-in is unavailable right now. Try again in a moment.";
  if (error === SIGN_IN_ERRORS.codeRequired) return "Enter the 6-digit code from your authenticator app, or a recovery code.";
  if (error === SIGN_IN_ERRORS.wrongCode) return "That code is not right or was already used. Wait for the next one.";
  if (error === "CredentialsSignin") return "Wrong e-mail or password.";
  return "Sign-in failed.";
}
