// The error codes sign-in hands the login page (next-auth puts them in the URL, so nothing else may
// get there), and what the page says for each.

export const SIGN_IN_ERRORS = { rateLimited: "RateLimited", unavailable: "Unavailable" } as const;

export function signInErrorMessage(error: string | null): string | null {
  if (!error) return null;
  if (error === SIGN_IN_ERRORS.rateLimited) return "Too many sign-ins. Wait a few minutes and try again.";
  if (error === SIGN_IN_ERRORS.unavailable) return "Sign-in is unavailable right now. Try again in a moment.";
  if (error === "CredentialsSignin") return "Wrong e-mail or password.";
  return "Sign-in failed.";
}
