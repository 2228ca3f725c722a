"use client";

import { signIn } from "next-auth/react";
import { useState } from "react";
import { OneTimeCodeField } from "./one-time-code-field";
import { SIGN_IN_ERRORS, signInErrorMessage } from "./sign-in-errors";
import { SSO_PROVIDERS } from "./sign-in-providers";

/**
 * The one-time code after single sign-on, for a user with two-step sign-in on: the identity provider
 * signed them in, the server handed this page a sealed ticket of that, and the code with the ticket
 * gives the session.
 */
export function SsoCodeForm({ ticket, email, callbackUrl }: { ticket: string; email: string; callbackUrl: string }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      method="post"
      onSubmit={async (event) => {
        event.preventDefault();
        const code = String(new FormData(event.currentTarget).get("code"));
        setBusy(true);
        setError(null);
        const result = await signIn(SSO_PROVIDERS.code, { ticket, code, redirect: false });
        if (result?.ok && !result.error) return window.location.assign(callbackUrl);
        const failure = result?.error ?? SIGN_IN_ERRORS.unavailable;
        // A ticket no longer good can't be fixed with another code: back to the start, saying why.
        if (failure === SIGN_IN_ERRORS.ssoExpired) return window.location.assign(`/login?error=${failure}`);
        setBusy(false);
        setError(signInErrorMessage(failure));
      }}
    >
      <p>
        Signed in with single sign-on as <strong>{email}</strong>. Two-step sign-in is on for you here.
      </p>
      <OneTimeCodeField />
      {error ? (
        <p role="alert" className="banner bad">
          {error}
        </p>
      ) : null}
      <button className="primary" type="submit" disabled={busy}>
        {busy ? "Signing in…" : "Verify"}
      </button>
      <a href="/login">Start over</a>
    </form>
  );
}
