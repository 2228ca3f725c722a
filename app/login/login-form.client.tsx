"use client";

import { signIn } from "next-auth/react";
import { useState } from "react";
import { signInErrorMessage } from "./sign-in-errors";

export function LoginForm({ initialError, callbackUrl }: { initialError: string | null; callbackUrl: string }) {
  const [error, setError] = useState<string | null>(signInErrorMessage(initialError));
  const [busy, setBusy] = useState(false);
  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        setBusy(true);
        setError(null);
        const result = await signIn("credentials", {
          email: String(form.get("email")),
          password: String(form.get("password")),
          redirect: false,
        });
        setBusy(false);
        if (result?.ok && !result.error) window.location.assign(callbackUrl);
        else setError(signInErrorMessage(result?.error ?? "CredentialsSignin"));
      }}
    >
      <label>
        E-mail
        <input name="email" type="email" autoComplete="username" required autoFocus />
      </label>
      <label>
        Password
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
      {error ? (
        <p role="alert" className="banner bad">
          {error}
        </p>
      ) : null}
      <button className="primary" type="submit" disabled={busy}>
        {busy ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
