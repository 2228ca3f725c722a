import { withAuth } from "next-auth/middleware";
import { appConfig } from "@/lib/config/env";

// Redirects signed-out visitors of console pages to /login. Only a convenience: every page, route
// handler and server action checks the session and the permission itself.
export default withAuth({ pages: { signIn: "/login" }, secret: appConfig().authSecret });

export const config = {
  // Webhooks, health, the host API and next-auth's own routes are not console pages.
  matcher: ["/((?!api/webhooks|api/health|api/payments|api/auth|login|_next/static|_next/image|favicon.ico).*)"],
};
