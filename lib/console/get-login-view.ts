import type { AppConfig } from "../config/env";
import { sameOriginPath } from "../request/same-origin-path";

export type LoginView = { error: string | null; callbackUrl: string; notice: string | null };

// Why the sign-in page was sent to, said above the form (a fixed word in the URL, never free text).
const NOTICES: Record<string, string> = {
  "password-changed": "Your password was changed and your sessions were signed out. Sign in with the new password.",
};

/** The sign-in page: the error next-auth sent back, a notice, and where to go after signing in (only a path on this site). */
export function getLoginView(config: AppConfig, params: { error?: string; callbackUrl?: string; notice?: string }): LoginView {
  return {
    error: params.error ?? null,
    callbackUrl: sameOriginPath(params.callbackUrl, config.publicUrl),
    notice: (params.notice && Object.hasOwn(NOTICES, params.notice) ? NOTICES[params.notice] : undefined) ?? null,
  };
}
