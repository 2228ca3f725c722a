import type { Metadata } from "next";
import { appConfig } from "@/lib/config/env";
import { sameOriginPath } from "@/lib/request/same-origin-path";
import { LoginForm } from "./login-form.client";

export const metadata: Metadata = { title: "Sign in" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ error?: string; callbackUrl?: string }> }) {
  const { error, callbackUrl } = await searchParams;
  return (
    <main className="login panel">
      <h1>Webhook Inbox</h1>
      <LoginForm initialError={error ?? null} callbackUrl={sameOriginPath(callbackUrl, appConfig().publicUrl)} />
    </main>
  );
}
