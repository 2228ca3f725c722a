// Next runs register() once when a server process starts. The web process watches the workers'
// heartbeats: when none is alive while events wait, it raises the alert they can't raise.

export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const [{ checkWorkerDownAlert }, { WORKER_CHECK_SECONDS }, { webRuntime }, { logger }] = await Promise.all([
    import("@/lib/alerts/check-alerts"),
    import("@/lib/inbox/process/worker-heartbeats"),
    import("@/lib/runtime/web-runtime"),
    import("@/lib/observability/logger"),
  ]);
  const timer = setInterval(() => {
    Promise.resolve()
      .then(() => checkWorkerDownAlert(webRuntime()))
      .catch((error: unknown) =>
        logger("alerts").error({ error: error instanceof Error ? error.message : String(error) }, "worker check failed"),
      );
  }, WORKER_CHECK_SECONDS * 1000);
  timer.unref();
}
