"use client";

import { signIn } from "next-auth/react";
import { useState } from "react";
import { SIGN_IN_ERRORS, signInErrorMessage } from "./sign-in-errors";

/**
 * E-mail and password; for a user with two-step sign-in, then the one-time code (the server said
 * CodeRequired: the password was right, and both are sent again with the code).
 */
export function LoginForm({
  initialError,
  callbackUrl,
  notice,
}: {
  initialError: string | null;
  callbackUrl: string;
  notice: string | null;
}) {
  const [error, setError] = useState<string | null>(signInErrorMessage(initialError));
  const [busy, setBusy] = useState(false);
  const [credentials, setCredentials] = useState<{ email: string; password: string } | null>(null);
  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        const typed = credentials ?? { email: String(form.get("email")), password: String(form.get("password")) };
        setBusy(true);
        setError(null);
        const result = await signIn("credentials", { ...typed, code: credentials ? String(form.get("code")) : "", redirect: false });
        setBusy(false);
        if (result?.ok && !result.error) return window.location.assign(callbackUrl);
        const code = result?.error ?? "CredentialsSignin";
        if (code === SIGN_IN_ERRORS.codeRequired || code === SIGN_IN_ERRORS.wrongCode) {
          setCredentials(typed);
          // The first ask is an instruction, not an error.
          setError(code === SIGN_IN_ERRORS.wrongCode ? signInErrorMessage(code) : null);
        } else {
          setCredentials(null);
          setError(signInErrorMessage(code));
        }
      }}
    >
      {notice && !error ? (
        <p role="status" className="banner ok">
          {notice}
        </p>
      ) : null}
      {credentials ? (
        <>
          <p>
            Two-step sign-in for <strong>{credentials.email}</strong>.
          </p>
          <label>
            One-time code
            <input
              name="code"
              inputMode="numeric"
              autoComplete="one-time-code"
              required
              autoFocus
              maxLength={64}
              aria-describedby="code-help"
              key="code"
            />
          </label>
          <p id="code-help" className="muted">
            The 6-digit code from your authenticator app, or one of your recovery codes.
          </p>
        </>
      ) : (
        <>
          <label>
            E-mail
            <input name="email" type="email" autoComplete="username" required autoFocus />
          </label>
          <label>
            Password
            <input name="password" type="password" autoComplete="current-password" required />
          </label>
        </>
      )}
      {error ? (
        <p role="alert" className="banner bad">
          {error}
        </p>
      ) : null}
      <button className="primary" type="submit" disabled={busy}>
        {busy ? "Signing in…" : credentials ? "Verify" : "Sign in"}
      </button>
      {credentials ? (
        <button type="button" onClick={() => (setCredentials(null), setError(null))}>
          Start over
        </button>
      ) : null}
    </form>
  );
}
