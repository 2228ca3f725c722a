// The error codes sign-in hands the login page (next-auth puts them in the URL, so nothing else may
// get there), and what the page says for each.

export const SIGN_IN_ERRORS = {
  rateLimited: "RateLimited",
  unavailable: "Unavailable",
  codeRequired: "CodeRequired",
  wrongCode: "WrongCode",
  ssoRefused: "SsoRefused",
  ssoExpired: "SsoExpired",
} as const;

export function signInErrorMessage(error: string | null): string | null {
  if (!error) return null;
  if (error === SIGN_IN_ERRORS.rateLimited) return "Too many sign-ins. Wait a few minutes and try again.";
  if (error === SIGN_IN_ERRORS.unavailable) return "Sign-in is unavailable right now. Try again in a moment.";
  if (error === SIGN_IN_ERRORS.codeRequired) return "Enter the 6-digit code from your authenticator app, or a recovery code.";
  if (error === SIGN_IN_ERRORS.wrongCode) return "That code is not right or was already used. Wait for the next one.";
  if (error === "CredentialsSignin") return "Wrong e-mail or password.";
  if (error === SIGN_IN_ERRORS.ssoRefused) return "Single sign-on worked, but it gives you no access to this console. Ask an admin.";
  if (error === SIGN_IN_ERRORS.ssoExpired) return "That sign-in took too long or is no longer valid. Sign in again.";
  // next-auth's own: the provider couldn't be reached, refused, or sent a token that didn't check out.
  if (error === "OAuthSignin" || error === "OAuthCallback" || error === "Callback")
    return "Single sign-on failed. Try again, or sign in with your password.";
  return "Sign-in failed.";
}
