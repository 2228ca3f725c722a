import type { Metadata } from "next";
import { getLoginView } from "@/lib/console/get-login-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { LoginForm } from "./login-form.client";
import { SIGN_IN_ERRORS } from "./sign-in-errors";
import { SsoCodeForm } from "./sso-code-form.client";

export const metadata: Metadata = { title: "Sign in" };

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<{ error?: string; callbackUrl?: string; notice?: string; sso?: string }>;
}) {
  const view = await getLoginView(webRuntime(), await searchParams);
  return (
    <main className="login panel">
      <h1>Webhook Inbox</h1>
      {view.ssoStep && view.ssoStep !== "expired" ? (
        <SsoCodeForm ticket={view.ssoStep.ticket} email={view.ssoStep.email} callbackUrl={view.callbackUrl} />
      ) : (
        <LoginForm
          initialError={view.ssoStep === "expired" ? SIGN_IN_ERRORS.ssoExpired : view.error}
          callbackUrl={view.callbackUrl}
          notice={view.notice}
          sso={view.sso}
        />
      )}
    </main>
  );
}
