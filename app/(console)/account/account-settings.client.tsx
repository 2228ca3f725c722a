"use client";

import { getCsrfToken } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { CopyButton } from "@/app/_components/copy-button.client";
import type { ActionResult } from "@/app/_server/action";
import type { AccountView } from "@/lib/console/get-account-view";
import { changePassword, confirmTwoFactorEnrolment, disableTwoFactor, startTwoFactorEnrolment } from "./actions";
import { plural } from "@/lib/text/words";

type Message = { kind: "ok" | "bad"; text: string } | null;
type Enrolment = { uri: string; secret: string; qrDataUrl: string };

const PENDING_TEXT = {
  change_password: "Your password was generated for you. Set your own before using the console.",
  enrol_two_factor: "Two-step sign-in is required for your role. Set it up to use the console.",
} as const;

function Outcome({ message }: { message: Message }) {
  if (!message) return null;
  return (
    <p role={message.kind === "bad" ? "alert" : "status"} className={`banner ${message.kind}`}>
      {message.text}
    </p>
  );
}

/** The account page: password, two-step sign-in (enrolment, recovery codes, turning it off), sessions. */
export function AccountSettings({ view }: { view: AccountView }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [passwordMessage, setPasswordMessage] = useState<Message>(null);
  const [codeMessage, setCodeMessage] = useState<Message>(null);
  const [sessionsMessage, setSessionsMessage] = useState<Message>(null);
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);

  /** Runs an action; a failure goes to `show`, a success to `done`. */
  function run<T>(work: () => Promise<ActionResult<T>>, show: (message: Message) => void, done: (data: T) => void) {
    startTransition(async () => {
      const result = await work();
      if (result.ok) done(result.data);
      else show({ kind: "bad", text: result.error });
    });
  }

  return (
    <>
      {view.pending ? (
        <p role="status" className="banner warn" data-testid="pending-step">
          {PENDING_TEXT[view.pending]}
        </p>
      ) : null}

      <section className="panel" aria-labelledby="password-heading">
        <h2 id="password-heading">Password</h2>
        <form
          method="post"
          className="filters"
          onSubmit={(event) => {
            event.preventDefault();
            const form = new FormData(event.currentTarget);
            const input = { current: String(form.get("current")), next: String(form.get("next")) };
            if (input.next !== String(form.get("confirm")))
              return setPasswordMessage({ kind: "bad", text: "The new passwords don't match." });
            setPasswordMessage(null);
            run(
              () => changePassword(input),
              setPasswordMessage,
              () => window.location.assign("/login?notice=password-changed"),
            );
          }}
        >
          <label>
            Current password
            <input name="current" type="password" autoComplete="current-password" required />
          </label>
          <label>
            New password (12+ characters)
            <input name="next" type="password" autoComplete="new-password" minLength={12} required />
          </label>
          <label>
            New password again
            <input name="confirm" type="password" autoComplete="new-password" minLength={12} required />
          </label>
          <button className="primary" type="submit" disabled={pending}>
            Change password
          </button>
        </form>
        <p className="muted">Changing it signs you out everywhere, here too.</p>
        <Outcome message={passwordMessage} />
      </section>

      <section className="panel" aria-labelledby="two-factor-heading">
        <h2 id="two-factor-heading">Two-step sign-in</h2>
        {recoveryCodes ? (
          <>
            <p role="status" className="banner ok">
              Two-step sign-in is on. Keep these recovery codes somewhere safe: each signs you in once without your phone. They are shown
              only now.
            </p>
            <ul className="recovery-codes" data-testid="recovery-codes">
              {recoveryCodes.map((code) => (
                <li key={code}>
                  <code>{code}</code>
                </li>
              ))}
            </ul>
            <div className="row">
              <CopyButton text={recoveryCodes.join("\n")} label="Copy recovery codes" />
              <button type="button" onClick={() => (setRecoveryCodes(null), router.refresh())}>
                Done
              </button>
            </div>
          </>
        ) : view.twoFactor ? (
          <>
            <p>On: signing in asks for a code from your authenticator app. {plural(view.recoveryCodesLeft, "recovery code")} left.</p>
            {view.twoFactorRequired ? (
              <p className="muted">Required for your role here, so it can&apos;t be turned off.</p>
            ) : (
              <form
                method="post"
                className="filters"
                onSubmit={(event) => {
                  event.preventDefault();
                  const code = String(new FormData(event.currentTarget).get("code"));
                  run(
                    () => disableTwoFactor({ code }),
                    setCodeMessage,
                    () => (setCodeMessage({ kind: "ok", text: "Two-step sign-in is off." }), router.refresh()),
                  );
                }}
              >
                <label>
                  A current code (or a recovery code)
                  <input name="code" inputMode="numeric" autoComplete="one-time-code" maxLength={64} required />
                </label>
                <button type="submit" disabled={pending}>
                  Turn off
                </button>
              </form>
            )}
          </>
        ) : enrolment ? (
          <>
            <p>Scan this with your authenticator app (or enter the key by hand), then type the code it shows.</p>
            <div className="enrolment">
              <img src={enrolment.qrDataUrl} alt="QR code of the two-step sign-in key" width={200} height={200} />
              <dl className="kv">
                <dt>Key</dt>
                <dd>
                  <code data-testid="totp-secret">{enrolment.secret}</code> <CopyButton text={enrolment.secret} label="Copy key" />
                </dd>
                <dt>Link</dt>
                <dd>
                  <a href={enrolment.uri} data-testid="totp-uri">
                    Open in an authenticator app
                  </a>
                </dd>
              </dl>
            </div>
            <form
              method="post"
              className="filters"
              onSubmit={(event) => {
                event.preventDefault();
                const code = String(new FormData(event.currentTarget).get("code"));
                setCodeMessage(null);
                run(
                  () => confirmTwoFactorEnrolment({ code }),
                  setCodeMessage,
                  (data) => (setEnrolment(null), setRecoveryCodes(data.recoveryCodes)),
                );
              }}
            >
              <label>
                Code from the app
                <input name="code" inputMode="numeric" autoComplete="one-time-code" maxLength={6} required autoFocus />
              </label>
              <button className="primary" type="submit" disabled={pending}>
                Turn on
              </button>
            </form>
          </>
        ) : (
          <>
            <p>Off: signing in takes your password only.</p>
            <button
              type="button"
              className="primary"
              disabled={pending}
              onClick={() => run(() => startTwoFactorEnrolment({}), setCodeMessage, setEnrolment)}
            >
              Set up two-step sign-in
            </button>
          </>
        )}
        <Outcome message={codeMessage} />
      </section>

      <section className="panel" aria-labelledby="sessions-heading">
        <h2 id="sessions-heading">Sessions</h2>
        <p className="muted">Signs you out on every other browser and device; this one stays signed in.</p>
        <button
          type="button"
          disabled={pending}
          onClick={() =>
            startTransition(async () => {
              // next-auth's session update (CSRF-checked): the server moves the session version on
              // and hands this session the new one.
              const response = await fetch("/api/auth/session", {
                method: "POST",
                headers: { "Content-Type": "application/json" },
                body: JSON.stringify({ csrfToken: await getCsrfToken(), data: { endOtherSessions: true } }),
              });
              const session: unknown = response.ok ? await response.json() : null;
              const ended = typeof session === "object" && session !== null && "user" in session;
              setSessionsMessage(
                ended
                  ? { kind: "ok", text: "Your other sessions are signed out." }
                  : { kind: "bad", text: "That didn't work: sign in again." },
              );
            })
          }
        >
          Sign out my other sessions
        </button>
        <Outcome message={sessionsMessage} />
      </section>
    </>
  );
}
