"use client";

export default function ConsoleError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="banner bad">
      <p>
        <strong>This page failed to load.</strong> {error.digest ? `Reference: ${error.digest}. ` : ""}The error was logged on the server.
      </p>
      <button type="button" onClick={reset}>
        Try again
      </button>
    </div>
  );
}
