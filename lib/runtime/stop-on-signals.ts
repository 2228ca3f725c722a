/**
 * Runs `shutdown` once, on the first SIGTERM or SIGINT (and, with `whenLauncherGone`, when the
 * launcher's IPC channel closes: even a kill -9 of the launcher closes it, so no orphan lingers),
 * then exits 0; if it fails, `reportFailure` says why and the process exits 1.
 */
export function stopOnSignals(
  shutdown: (reason: string) => Promise<void>,
  options: { whenLauncherGone?: boolean; reportFailure?: (error: unknown, reason: string) => void } = {},
): void {
  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    shutdown(reason).then(
      () => process.exit(0),
      (error: unknown) => {
        options.reportFailure?.(error, reason);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  if (options.whenLauncherGone && process.send) process.on("disconnect", () => stop("launcher gone"));
}
