import type { AuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { recordAudit } from "@/lib/audit/record-audit";
import { authenticate } from "@/lib/auth/login";
import { isRole } from "@/lib/auth/permissions";
import { endSessions } from "@/lib/auth/users";
import { clientAddress, trustedProxySet } from "@/lib/request/client-address";
import { webRuntime } from "@/lib/runtime/web-runtime";

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
  }
}

/** next-auth: e-mail and password against the users table, JWT sessions carrying id and role. */
export function authOptions(): AuthOptions {
  const runtime = webRuntime();
  return {
    secret: runtime.config.authSecret,
    session: { strategy: "jwt", maxAge: SESSION_HOURS * 3600 },
    // Secure, __Secure-/__Host- prefixed cookies whenever the public URL is https (behind a TLS proxy
    // the server itself only sees http).
    useSecureCookies: runtime.config.publicUrl?.startsWith("https://") ?? false,
    pages: { signIn: "/login" },
    providers: [
      CredentialsProvider({
        name: "E-mail",
        credentials: { email: { label: "E-mail", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, request) {
          if (!credentials?.email || !credentials.password) return null;
          const result = await authenticate(runtime, {
            email: credentials.email,
            password: credentials.password,
            ip: clientIp(request?.headers ?? {}),
          });
          if (!result.ok) {
            if (result.reason === "rate_limited") throw new Error("RateLimited");
            return null;
          }
          const { user, sessionVersion } = result;
          return { id: String(user.id), email: user.email, name: user.name, role: user.role, sessionVersion };
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) {
          token.role = user.role;
          token.sessionVersion = user.sessionVersion;
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
