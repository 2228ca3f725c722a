import pg from "pg";
import { logger } from "../observability/logger";
import type { DatabaseTimeouts } from "./pool";

// One connection of its own LISTENing on a channel, for the rare changes every process must hear of
// within seconds (a gateway account added on another process). A pooled connection can't listen:
// it goes back to the pool between queries. Lost, it reconnects (1 s doubling to 30 s); what was
// notified meanwhile is gone, so `onConnect` runs after every (re)connection and the caller catches
// up from the table itself.

export type ChannelHandlers = {
  /** Each notification's payload, in the order the database sent them. */
  onNotify(payload: string): void;
  /** After the first connection and every reconnection: catch up on what may have been missed. */
  onConnect(): void;
};

export type ChannelListener = { close(): Promise<void> };

const MAX_RETRY_MS = 30_000;

/** Listens on `channel` until closed; never throws (failures are logged and retried). */
export function listenOnChannel(
  url: string,
  applicationName: string,
  timeouts: DatabaseTimeouts,
  channel: string,
  handlers: ChannelHandlers,
): ChannelListener {
  const log = logger("db", { channel });
  let client: pg.Client | null = null;
  let closed = false;
  let retryMs = 1_000;
  let timer: NodeJS.Timeout | undefined;

  const retry = () => {
    if (closed) return;
    timer = setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  };

  function connect(): void {
    const current = new pg.Client({
      connectionString: url,
      application_name: applicationName,
      connectionTimeoutMillis: timeouts.connectMs,
      keepAlive: true,
    });
    client = current;
    let lost = false;
    const drop = (error: Error) => {
      if (lost) return;
      lost = true;
      if (!closed) log.warn({ error: error.message }, "listening connection lost; reconnecting");
      current.removeAllListeners("notification");
      current.end().catch(() => undefined);
      retry();
    };
    current.on("error", drop);
    current.on("end", () => drop(new Error("connection ended")));
    current.on("notification", (message) => {
      if (message.channel === channel) handlers.onNotify(message.payload ?? "");
    });
    current
      .connect()
      .then(() => current.query(`LISTEN ${pg.escapeIdentifier(channel)}`))
      .then(() => {
        if (closed) return;
        retryMs = 1_000;
        handlers.onConnect();
      })
      .catch((error: unknown) => drop(error instanceof Error ? error : new Error(String(error))));
  }

  connect();
  return {
    close: async () => {
      closed = true;
      clearTimeout(timer);
      const current = client;
      client = null;
      current?.removeAllListeners("notification");
      await current?.end().catch(() => undefined);
    },
  };
}
