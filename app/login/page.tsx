import type { Metadata } from "next";
import { getLoginView } from "@/lib/console/get-login-view";
import { webRuntime } from "@/lib/runtime/web-runtime";
import { LoginForm } from "./login-form.client";

export const metadata: Metadata = { title: "Sign in" };

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<{ error?: string; callbackUrl?: string; notice?: string }>;
}) {
  const view = getLoginView(webRuntime().config, await searchParams);
  return (
    <main className="login panel">
      <h1>Webhook Inbox</h1>
      <LoginForm initialError={view.error} callbackUrl={view.callbackUrl} notice={view.notice} />
    </main>
  );
}
