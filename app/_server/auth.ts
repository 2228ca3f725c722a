import type { AuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { recordAudit } from "@/lib/audit/record-audit";
import { authenticate } from "@/lib/auth/login";
import { isRole } from "@/lib/auth/permissions";
import { webRuntime } from "@/lib/runtime/web-runtime";

const SESSION_HOURS = 8;

/** The client's address as the server saw it (first hop of X-Forwarded-For when behind a proxy). */
export function clientIp(headers: Record<string, string | string[] | undefined> | Headers): string | null {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : ([headers[name]].flat()[0] ?? null));
  return get("x-forwarded-for")?.split(",")[0]?.trim() || get("x-real-ip") || null;
}

declare module "next-auth" {
  interface Session {
    user: { id: string; email: string; name?: string | null; role: string };
  }
  interface User {
    role: string;
  }
}

/** next-auth: e-mail and password against the users table, JWT sessions carrying id and role. */
export function authOptions(): AuthOptions {
  const runtime = webRuntime();
  return {
    secret: runtime.config.authSecret,
    session: { strategy: "jwt", maxAge: SESSION_HOURS * 3600 },
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
          const { user } = result;
          return { id: String(user.id), email: user.email, name: user.name, role: user.role };
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) token.role = user.role;
        return token;
      },
      session({ session, token }) {
        session.user = {
          id: token.sub ?? "",
          email: token.email ?? "",
          name: token.name,
          role: isRole(token.role) ? token.role : "viewer",
        };
        return session;
      },
    },
    events: {
      async signOut({ token }) {
        if (token?.email) await recordAudit(runtime.pool, { actor: token.email, action: "logout" });
      },
    },
  };
}
