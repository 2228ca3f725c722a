import type { AuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { recordAudit } from "@/lib/audit/record-audit";
import { authenticate } from "@/lib/auth/login";
import { isRole } from "@/lib/auth/permissions";
import { endOtherSessions, endSessions, sessionStillValid } from "@/lib/auth/users";
import { errorForLog } from "@/lib/errors/app-error";
import { logger } from "@/lib/observability/logger";
import { clientAddress, trustedProxySet } from "@/lib/request/client-address";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { SIGN_IN_ERRORS } from "@/app/login/sign-in-errors";
import { oidcProviders } from "./oidc-provider";

const SESSION_HOURS = 8;

/** The client's address (see lib/request/client-address: X-Forwarded-For counts only from TRUSTED_PROXIES). */
export function clientIp(headers: Record<string, string | string[] | undefined> | Headers): string | null {
  return clientAddress(headers, trustedProxySet(webRuntime().config.trustedProxies));
}

declare module "next-auth" {
  interface Session {
    user: { id: string; email: string; name?: string | null; role: string; sessionVersion: number | null };
  }
  interface User {
    role: string;
    sessionVersion: number;
    /** A single sign-on that gave no session: where the login page takes it up (a refusal, the one-time code). */
    signInRedirect?: string;
  }
}

class SessionEndedError extends Error {
  override name = "SessionEndedError";
  constructor() {
    super("the session was ended or outlived its absolute lifetime");
  }
}

/**
 * next-auth: e-mail and password against the users table, and single sign-on when OIDC_ISSUER is
 * set; JWT sessions carrying id and role. `request.ip`: the client of a sign-in (next-auth's route
 * passes it; reading a session needs none).
 */
export function authOptions(request: { ip: string | null } = { ip: null }): AuthOptions {
  const runtime = webRuntime();
  return {
    secret: runtime.config.authSecret,
    session: { strategy: "jwt", maxAge: SESSION_HOURS * 3600 },
    // Secure, __Secure-/__Host- prefixed cookies whenever the public URL is https (behind a TLS proxy
    // the server itself only sees http).
    useSecureCookies: runtime.config.publicUrl?.startsWith("https://") ?? false,
    // Errors of a sign-in that left the page (single sign-on) come back to it as ?error=<code>.
    pages: { signIn: "/login", error: "/login" },
    // An ended session is routine, not an error worth a stack trace; the rest goes to our log, by code only.
    logger: {
      error(code, metadata) {
        if (metadata instanceof SessionEndedError) return;
        // A refused ID token (its signature, issuer, audience, nonce): the check that failed is in
        // the stack; the message may quote the token's claims, so it is not logged.
        const cause = metadata && "error" in metadata ? metadata.error : undefined;
        logger("auth").error({ code, ...(cause instanceof Error ? { error: errorForLog(cause) } : {}) }, "next-auth error");
      },
      warn(code) {
        logger("auth").warn({ code }, "next-auth warning");
      },
      debug() {},
    },
    providers: [
      CredentialsProvider({
        name: "E-mail",
        credentials: {
          email: { label: "E-mail", type: "email" },
          password: { label: "Password", type: "password" },
          code: { label: "One-time code", type: "text" },
        },
        async authorize(credentials, request) {
          if (!credentials?.email || !credentials.password) return null;
          // next-auth puts a thrown error's message in the login URL: only our codes may get there.
          const result = await authenticate(runtime, {
            email: credentials.email,
            password: credentials.password,
            code: credentials.code,
            ip: clientIp(request?.headers ?? {}),
          }).catch((error: unknown) => {
            logger("auth").error({ error: errorForLog(error) }, "sign-in failed");
            throw new Error(SIGN_IN_ERRORS.unavailable);
          });
          if (!result.ok) {
            if (result.reason === "rate_limited") throw new Error(SIGN_IN_ERRORS.rateLimited);
            if (result.reason === "code_required") throw new Error(SIGN_IN_ERRORS.codeRequired);
            if (result.reason === "wrong_code") throw new Error(SIGN_IN_ERRORS.wrongCode);
            return null;
          }
          const { user, sessionVersion } = result;
          return { id: String(user.id), email: user.email, name: user.name, role: user.role, sessionVersion };
        },
      }),
      ...oidcProviders(runtime, request.ip),
    ],
    callbacks: {
      signIn({ user }) {
        return user.signInRedirect ?? true;
      },
      // Every read of a session, next-auth's own /api/auth/session included, checks it against the
      // database and its absolute lifetime (the cookie's expiry slides with use): a throw here makes
      // next-auth answer with no session and clear the cookie.
      // "Sign out my other sessions" is an update of the session (next-auth's CSRF-checked POST to
      // /api/auth/session): the user's version moves on and only this token is handed the new one.
      async jwt({ token, user, trigger, session }) {
        if (user) {
          token.role = user.role;
          token.sessionVersion = user.sessionVersion;
          token.signedInAt = Math.floor(Date.now() / 1000);
          return token;
        }
        const valid = await sessionStillValid(
          runtime.prisma,
          { userId: Number(token.sub), sessionVersion: token.sessionVersion, signedInAt: token.signedInAt },
          SESSION_HOURS * 3600,
        );
        if (!valid) throw new SessionEndedError();
        if (trigger === "update" && (session as { endOtherSessions?: unknown } | undefined)?.endOtherSessions === true) {
          const version = await endOtherSessions(runtime.prisma, Number(token.sub), token.sessionVersion as number, null);
          if (version === null) throw new SessionEndedError();
          token.sessionVersion = version;
        }
        return token;
      },
      session({ session, token }) {
        session.user = {
          id: token.sub ?? "",
          email: token.email ?? "",
          name: token.name,
          role: isRole(token.role) ? token.role : "viewer",
          sessionVersion: typeof token.sessionVersion === "number" ? token.sessionVersion : null,
        };
        return session;
      },
    },
    events: {
      // Signing out ends the user's sessions everywhere: a copied token stops working too.
      async signOut({ token }) {
        const id = Number(token?.sub);
        if (Number.isInteger(id) && id > 0) await endSessions(runtime.prisma, id);
        if (token?.email) await recordAudit(runtime.pool, { actor: token.email, action: "logout" });
      },
    },
  };
}
