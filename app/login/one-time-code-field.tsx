/** The second step's field, after a password or a single sign-on: a code from the app, or a recovery code. */
export function OneTimeCodeField() {
  return (
    <>
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
        />
      </label>
      <p id="code-help" className="muted">
        The 6-digit code from your authenticator app, or one of your recovery codes.
      </p>
    </>
  );
}
