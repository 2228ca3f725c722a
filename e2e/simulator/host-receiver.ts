import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import type { PaymentChange } from "@/lib/outbox/payment-change";

// The host application's side of destinations, as a host would write it: every message verified
// with the official standardwebhooks library, deduped on webhook-id, the last version of each
// payment kept. It can also misbehave the ways real hosts do: a share of 500s, of hangs past the
// sender's timeout, an outage, or one fixed answer (410 Gone).

export type Flakiness = {
  failShare: number;
  hangShare: number;
  down: boolean;
  fixedStatus: number | null;
  /** Answers 500 to the (verified) changes it matches: one payment stuck while others flow. */
  refuse: ((change: PaymentChange) => boolean) | null;
};

export type HostReceiver = {
  url: string;
  /** Every verified message, in arrival order (retries included). */
  received: { id: string; change: PaymentChange }[];
  /** The host's effects: one per webhook-id, in arrival order. */
  applied: PaymentChange[];
  /** Messages whose signature did not verify (answered 400). */
  rejected: number;
  /** Each payment's last version as the host saw it (the host's view of the world). */
  lastVersion: Map<string, PaymentChange>;
  /** Versions that arrived (after dedupe) out of order for their payment. */
  outOfOrder: string[];
  set: (flakiness: Partial<Flakiness>) => void;
  close: () => Promise<void>;
};

const paymentOf = (change: PaymentChange) => `${change.provider}/${change.chargeId}`;

export async function startHostReceiver(
  secret: string | string[],
  flakiness: Partial<Flakiness> = {},
  port = 0,
  random = Math.random,
): Promise<HostReceiver> {
  const verifiers = (Array.isArray(secret) ? secret : [secret]).map((key) => new Webhook(key));
  const mode: Flakiness = { failShare: 0, hangShare: 0, down: false, fixedStatus: null, refuse: null, ...flakiness };
  const seen = new Set<string>();
  const hanging = new Set<ServerResponse>();
  const receiver: Omit<HostReceiver, "url" | "close"> = {
    received: [],
    applied: [],
    rejected: 0,
    lastVersion: new Map(),
    outOfOrder: [],
    set: (changes) => Object.assign(mode, changes),
  };

  /** The message, if any of the host's secrets verifies it (during a rotation the host holds two). */
  function verify(body: string, headers: Record<string, string>): { type: string; data: PaymentChange } | null {
    for (const verifier of verifiers) {
      try {
        return verifier.verify(body, headers) as { type: string; data: PaymentChange };
      } catch {
        // the next secret, if any
      }
    }
    return null;
  }

  function handle(request: IncomingMessage, response: ServerResponse, body: string) {
    if (mode.down) return response.socket?.destroy();
    if (mode.fixedStatus !== null) return response.writeHead(mode.fixedStatus).end("fixed answer");
    const roll = random();
    if (roll < mode.hangShare) {
      hanging.add(response);
      return;
    }
    if (roll < mode.hangShare + mode.failShare) return response.writeHead(500).end("flaky host");
    const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
    const message = verify(body, headers);
    if (!message) {
      receiver.rejected++;
      return response.writeHead(400).end("bad signature");
    }
    if (mode.refuse?.(message.data)) return response.writeHead(500).end("not now");
    const id = headers["webhook-id"]!;
    receiver.received.push({ id, change: message.data });
    // Dedupe on webhook-id: a retry of a message already applied changes nothing.
    if (message.type === "payment.updated" && !seen.has(id)) {
      seen.add(id);
      const change = message.data;
      const last = receiver.lastVersion.get(paymentOf(change));
      if (last && last.version >= change.version)
        receiver.outOfOrder.push(`${paymentOf(change)} v${change.version} after v${last.version}`);
      else receiver.lastVersion.set(paymentOf(change), change);
      receiver.applied.push(change);
    }
    response.writeHead(204).end();
  }

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => handle(request, response, Buffer.concat(chunks).toString("utf8")));
  });
  // A busy port rejects (EADDRINUSE) instead of crashing the process: the caller says which option moves it.
  await new Promise<void>((ready, fail) => server.once("error", fail).listen(port, "127.0.0.1", ready));
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    close: async () => {
      for (const response of hanging) response.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  });
}
