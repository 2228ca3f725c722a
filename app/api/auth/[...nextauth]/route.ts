import NextAuth from "next-auth";
import type { NextRequest } from "next/server";
import { authOptions } from "@/app/_server/auth";

type Context = { params: Promise<{ nextauth: string[] }> };

// next-auth's own endpoints: sign-in (credentials), sign-out, session, CSRF.
async function handler(request: NextRequest, context: Context) {
  return NextAuth(request, context, authOptions());
}

export { handler as GET, handler as POST };
