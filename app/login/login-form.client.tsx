"use client";

import { signIn } from "next-auth/react";
import { useState } from "react";
import { OneTimeCodeField } from "./one-time-code-field";
import { SIGN_IN_ERRORS, signInErrorMessage } from "./sign-in-errors";
import { SSO_PROVIDERS } from "./sign-in-providers";

/**
 * E-mail and password; for a user with two-step sign-in, then the one-time code (the server said
 * CodeRequired: the password was right, and both are sent again with the code). With single sign-on
 * configured, a button below starts it (next-auth sends the browser to the identity provider).
 */
export function LoginForm({
  initialError,
  callbackUrl,
  notice,
  sso,
}: {
  initialError: string | null;
  callbackUrl: string;
  notice: string | null;
  sso: { name: string } | null;
}) {
  const [error, setError] = useState<string | null>(signInErrorMessage(initialError));
  const [busy, setBusy] = useState(false);
  const [credentials, setCredentials] = useState<{ email: string; password: string } | null>(null);
  return (
    <form
      method="post"
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
          <OneTimeCodeField />
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
      ) : sso ? (
        <>
          <p className="login-or" aria-hidden="true">
            or
          </p>
          <button
            type="button"
            disabled={busy}
            onClick={async () => {
              setBusy(true);
              setError(null);
              // next-auth sends the browser on to the identity provider (or back here with an error code).
              await signIn(SSO_PROVIDERS.signIn, { callbackUrl }).catch(() => {
                setBusy(false);
                setError(signInErrorMessage(SIGN_IN_ERRORS.unavailable));
              });
            }}
          >
            Sign in with {sso.name}
          </button>
        </>
      ) : null}
    </form>
  );
}
