import { withAuth, type NextRequestWithAuth } from "next-auth/middleware";
import { NextResponse } from "next/server";
import { appConfig } from "@/lib/config/env";
import { contentSecurityPolicy, createNonce, transportSecurityHeader } from "@/lib/request/security-headers";

// Every page gets a Content-Security-Policy with a fresh nonce (Next reads it from the request's CSP
// header and puts it on its scripts) and HSTS when the public URL is https. Signed-out visitors of
// console pages are sent to /login: only a convenience, every page, route handler and server action
// checks the session and the permission itself.
export default async function proxy(request: NextRequestWithAuth) {
  const config = appConfig();
  const signInRedirect = await withAuth(request, { pages: { signIn: "/login" }, secret: config.authSecret });
  if (request.nextUrl.pathname.startsWith("/api/")) return signInRedirect ?? NextResponse.next();

  const https = config.publicUrl?.startsWith("https://") ?? false;
  const policy = contentSecurityPolicy({ nonce: createNonce(), development: config.nodeEnv === "development", https });
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("content-security-policy", policy);
  const response = signInRedirect ?? NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("content-security-policy", policy);
  const hsts = transportSecurityHeader(https);
  if (hsts) response.headers.set("strict-transport-security", hsts);
  return response;
}

export const config = {
  // Webhooks, health, metrics (a scraper's bearer token, not a session), the host API, the change
  // feed, the host API's OpenAPI document, the privacy requests, the gateway accounts and next-auth's
  // own routes answer for themselves; static assets need no policy.
  matcher: [
    "/((?!api/webhooks|api/health|api/metrics|api/payments|api/payment-changes|api/openapi.json|api/privacy|api/gateway-accounts|api/auth|_next/static|_next/image|favicon.ico).*)",
  ],
};
