import { ticketEmail } from "../auth/oidc-sign-in";
import type { LoginDeps } from "../auth/login";
import { sameOriginPath } from "../request/same-origin-path";

export type LoginView = {
  error: string | null;
  callbackUrl: string;
  notice: string | null;
  /** Single sign-on, when configured: the button's provider name. */
  sso: { name: string } | null;
  /** A single sign-on waiting for its one-time code (the ticket its first step handed out), or one whose ticket is no longer good. */
  ssoStep: { ticket: string; email: string } | "expired" | null;
};

// Why the sign-in page was sent to, said above the form (a fixed word in the URL, never free text).
const NOTICES: Record<string, string> = {
  "password-changed": "Your password was changed and your sessions were signed out. Sign in with the new password.",
};

/** The sign-in page: the error next-auth sent back, a notice, and where to go after signing in (only a path on this site). */
export async function getLoginView(
  runtime: LoginDeps,
  params: { error?: string; callbackUrl?: string; notice?: string; sso?: string },
): Promise<LoginView> {
  const email = params.sso ? await ticketEmail(runtime, params.sso) : null;
  return {
    error: params.error ?? null,
    callbackUrl: sameOriginPath(params.callbackUrl, runtime.config.publicUrl),
    notice: (params.notice && Object.hasOwn(NOTICES, params.notice) ? NOTICES[params.notice] : undefined) ?? null,
    sso: runtime.config.oidc ? { name: runtime.config.oidc.name } : null,
    ssoStep: params.sso ? (email ? { ticket: params.sso, email } : "expired") : null,
  };
}
