import type { AppConfig } from "../config/env";
import { sameOriginPath } from "../request/same-origin-path";

export type LoginView = { error: string | null; callbackUrl: string };

/** The sign-in page: the error next-auth sent back, and where to go after signing in (only a path on this site). */
export function getLoginView(config: AppConfig, params: { error?: string; callbackUrl?: string }): LoginView {
  return { error: params.error ?? null, callbackUrl: sameOriginPath(params.callbackUrl, config.publicUrl) };
}
