import type { User } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import type { OAuthConfig } from "next-auth/providers/oauth";
// next-auth's OpenID Connect client; its types name the token set only by its fields.
import type { TokenSet } from "openid-client";
import { finishOidcSignIn, signInWithOidc } from "@/lib/auth/oidc-sign-in";
import { errorForLog } from "@/lib/errors/app-error";
import { logger } from "@/lib/observability/logger";
import type { WebRuntime } from "@/lib/runtime/web-runtime";
import { SIGN_IN_ERRORS } from "@/app/login/sign-in-errors";
import { SSO_PROVIDERS } from "@/app/login/sign-in-providers";

// Single sign-on through next-auth's own OpenID Connect client (openid-client underneath): the
// provider's discovery document, the authorization code flow with PKCE, state and nonce, and the ID
// token's signature (the provider's published keys), issuer, audience, expiry and nonce checked
// before any of our code sees a claim. Who the claims are here is lib/auth/oidc-sign-in.

type Claims = Record<string, unknown> & { sub: string };

/** What a sign-in that gave no session hands next-auth: where the login page takes it up. */
const goTo = (sub: string, signInRedirect: string): User => ({ id: sub, role: "viewer", sessionVersion: -1, signInRedirect });

export function oidcProviders(runtime: WebRuntime, ip: string | null) {
  const oidc = runtime.config.oidc;
  if (!oidc) return [];
  const provider: OAuthConfig<Claims> = {
    id: SSO_PROVIDERS.signIn,
    name: oidc.name,
    type: "oauth",
    wellKnown: `${oidc.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`,
    clientId: oidc.clientId,
    clientSecret: oidc.clientSecret,
    authorization: { params: { scope: oidc.scopes } },
    idToken: true,
    checks: ["pkce", "state", "nonce"],
    httpOptions: { timeout: 10_000 },
    // The verified ID token's claims, with the userinfo endpoint's beside them: a provider that
    // follows the specification to the letter puts e-mail and groups only there for the code flow.
    // openid-client refuses a userinfo answer about another subject; the ID token wins a conflict.
    userinfo: {
      async request({ tokens, client }) {
        const tokenSet = tokens as TokenSet;
        const fromToken = tokenSet.claims();
        const fromEndpoint = client.issuer.metadata.userinfo_endpoint && tokenSet.access_token ? await client.userinfo(tokenSet) : {};
        return { ...fromEndpoint, ...fromToken };
      },
    },
    async profile(claims) {
      const result = await signInWithOidc(runtime, claims, ip).catch((error: unknown) => {
        logger("auth").error({ error: errorForLog(error) }, "single sign-on failed");
        return { ok: false as const, reason: "unavailable" as const };
      });
      if (result.ok) {
        const { user, sessionVersion } = result;
        return { id: String(user.id), email: user.email, name: user.name, role: user.role, sessionVersion };
      }
      if (result.reason === "code_required") return goTo(claims.sub, `/login?sso=${encodeURIComponent(result.ticket)}`);
      if (result.reason === "refused") return goTo(claims.sub, `/login?error=${SIGN_IN_ERRORS.ssoRefused}`);
      return goTo(claims.sub, `/login?error=${result.reason === "rate_limited" ? SIGN_IN_ERRORS.rateLimited : SIGN_IN_ERRORS.unavailable}`);
    },
  };
  const code = CredentialsProvider({
    id: SSO_PROVIDERS.code,
    name: `${oidc.name}: one-time code`,
    credentials: { ticket: { type: "text" }, code: { label: "One-time code", type: "text" } },
    async authorize(credentials) {
      if (!credentials?.ticket) return null;
      const result = await finishOidcSignIn(runtime, { ticket: credentials.ticket, code: credentials.code ?? "", ip }).catch(
        (error: unknown) => {
          logger("auth").error({ error: errorForLog(error) }, "single sign-on failed");
          throw new Error(SIGN_IN_ERRORS.unavailable);
        },
      );
      if (result.ok) {
        const { user, sessionVersion } = result;
        return { id: String(user.id), email: user.email, name: user.name, role: user.role, sessionVersion };
      }
      if (result.reason === "rate_limited") throw new Error(SIGN_IN_ERRORS.rateLimited);
      if (result.reason === "wrong_code") throw new Error(SIGN_IN_ERRORS.wrongCode);
      throw new Error(SIGN_IN_ERRORS.ssoExpired);
    },
  });
  return [provider, code];
}
