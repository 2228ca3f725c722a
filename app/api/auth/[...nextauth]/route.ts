import NextAuth from "next-auth";
import { NextRequest } from "next/server";
import { authOptions, clientIp } from "@/app/_server/auth";
import { errorResponse } from "@/app/_server/route-handler";
import { BodyTooLargeError, readBodyWithLimit } from "@/lib/request/read-body";
import { AUTH_BODY_LIMIT_BYTES } from "@/lib/request/body-limits";

type Context = { params: Promise<{ nextauth: string[] }> };

// next-auth's own endpoints: sign-in (credentials; single sign-on's start and callback), sign-out,
// session, CSRF. next-auth reads and parses whatever body it is given (an unauthenticated 80 MB JSON
// post exhausted the heap), so the body is read here first, at most AUTH_BODY_LIMIT_BYTES, and
// handed on as a copy. The client's address goes to the sign-ins' audit rows.
async function handler(request: NextRequest, context: Context) {
  const options = authOptions({ ip: clientIp(request.headers) });
  if (request.method !== "POST") return NextAuth(request, context, options);
  let body: Buffer;
  try {
    body = await readBodyWithLimit(request, AUTH_BODY_LIMIT_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLargeError) return errorResponse(413, error.message, "PAYLOAD_TOO_LARGE");
    throw error;
  }
  const bounded = new NextRequest(request.url, { method: request.method, headers: request.headers, body: new Uint8Array(body) });
  return NextAuth(bounded, context, options);
}

export { handler as GET, handler as POST };
