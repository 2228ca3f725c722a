"use client";

import { useRouter } from "next/navigation";
import { useState, useTransition, type ReactNode } from "react";
import { useDisplayZone } from "@/app/_components/display-time.client";
import type { ActionResult } from "@/app/_server/action";
import type { DestinationView } from "@/lib/console/get-destination-view";
import { fromZonedInput } from "@/lib/time/format-time";
import { QueuedWindow } from "./queued-window";
import { countResendable, previewRecovery, recoverChanges, resendDeliveries, retryDeliveries, setDestinationPaused } from "../actions";
import { plural } from "@/lib/text/words";

type Message = { kind: "ok" | "bad"; text: string };

/** Runs a server action, says what it did (or why not), and shows the page again. */
export function useConsoleAction() {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const [message, setMessage] = useState<Message | null>(null);
  const run = <T,>(action: () => Promise<ActionResult<T>>, done: (data: T) => string) =>
    startTransition(async () => {
      const result = await action();
      setMessage(result.ok ? { kind: "ok", text: done(result.data) } : { kind: "bad", text: result.error });
      if (result.ok) router.refresh();
    });
  const status: ReactNode = message ? (
    <p role="status" className={`banner ${message.kind}`}>
      {message.text}
    </p>
  ) : null;
  return { pending, run, status };
}

/** Retry now (the whole queue) and pause / resume, beside the state they act on. */
export function DestinationActions({ state }: { state: DestinationView["state"] }) {
  const { pending, run, status } = useConsoleAction();
  const sendable = state.condition !== "paused" && state.condition !== "disabled";
  return (
    <div className="panel">
      <div className="row">
        <button
          type="button"
          disabled={pending || !sendable}
          onClick={() =>
            run(
              () => retryDeliveries({ destinationId: state.id }),
              (data) => `Retrying ${plural(data.retried, "delivery", "deliveries")} now${data.probed ? "; the circuit probes now" : ""}.`,
            )
          }
        >
          Retry now
        </button>
        {state.condition === "disabled" ? null : (
          <button
            type="button"
            disabled={pending}
            onClick={() =>
              run(
                () => setDestinationPaused({ id: state.id, paused: !state.paused }),
                (data) => (data.paused ? `${state.name} paused: nothing is sent, deliveries keep queueing.` : `${state.name} resumed.`),
              )
            }
          >
            {state.paused ? "Resume" : "Pause"}
          </button>
        )}
        <span className="muted">
          {sendable
            ? "Retry now sends what waits without waiting for its backoff; an open circuit probes at once."
            : state.condition === "paused"
              ? "Paused: resume to send again."
              : "Switched off: switch it on from the destinations list to send again."}
        </span>
      </div>
      {status}
    </div>
  );
}

const instant = (value: FormDataEntryValue | null, zone: string) =>
  value ? (fromZonedInput(String(value), zone)?.toISOString() ?? undefined) : undefined;

/**
 * A bulk action in two steps: the form's button counts what it would touch (a server action, nothing
 * changed yet); only then a second button, with that count on it, does it.
 */
function CountedAction<Input>({
  title,
  testId,
  children,
  read,
  count,
  confirm,
}: {
  title: string;
  testId: string;
  children: ReactNode;
  /** The input from the form, or why it can't be run. */
  read: (form: FormData) => Input | string;
  count: (input: Input) => Promise<ActionResult<{ n: number; text: string }>>;
  confirm: { label: (n: number) => string; act: (input: Input) => Promise<ActionResult<string>> };
}) {
  const { pending, run, status } = useConsoleAction();
  const [counting, startCounting] = useTransition();
  const [counted, setCounted] = useState<{ input: Input; n: number; text: string } | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <section className="panel" aria-label={title}>
      <h2>{title}</h2>
      <form
        method="post"
        className="filters"
        onChange={() => setCounted(null)}
        onSubmit={(event) => {
          event.preventDefault();
          const input = read(new FormData(event.currentTarget));
          if (typeof input === "string") return setProblem(input);
          startCounting(async () => {
            const result = await count(input);
            setProblem(result.ok ? null : result.error);
            setCounted(result.ok ? { input, ...result.data } : null);
          });
        }}
      >
        {children}
        <button type="submit" disabled={counting || pending}>
          Count
        </button>
      </form>
      {counted ? (
        <p className="row">
          <span data-testid={testId}>{counted.text}</span>
          <button
            type="button"
            disabled={pending || counted.n === 0}
            onClick={() => {
              const { input } = counted;
              setCounted(null);
              run(
                () => confirm.act(input),
                (text) => text,
              );
            }}
          >
            {confirm.label(counted.n)}
          </button>
        </p>
      ) : null}
      {problem ? (
        <p role="alert" className="banner bad">
          {problem}
        </p>
      ) : null}
      {status}
    </section>
  );
}

const mapped = async <T, U>(result: Promise<ActionResult<T>>, map: (data: T) => U): Promise<ActionResult<U>> => {
  const settled = await result;
  return settled.ok ? { ok: true, data: map(settled.data) } : settled;
};

/** Resend by filter: dead or delivered deliveries queued in a time window, counted before confirming (audited with the filter and the count). */
export function BulkResend({
  destinationId,
  resendable,
  inputs,
}: Pick<DestinationView, "resendable" | "inputs"> & { destinationId: number }) {
  const zone = useDisplayZone();
  type Input = { destinationId: number; filter: { status: string; from?: string; to?: string } };
  return (
    <CountedAction<Input>
      title="Resend by filter"
      testId="resend-count"
      read={(form) => ({
        destinationId,
        filter: { status: String(form.get("status")), from: instant(form.get("from"), zone), to: instant(form.get("to"), zone) },
      })}
      count={(input) =>
        mapped(countResendable(input), ({ count }) => ({ n: count, text: `${plural(count, "delivery", "deliveries")} match.` }))
      }
      confirm={{
        label: (n) => `Resend ${plural(n, "delivery", "deliveries")}`,
        act: (input) => mapped(resendDeliveries(input), ({ resent }) => `Resending ${plural(resent, "delivery", "deliveries")}.`),
      }}
    >
      <label>
        Status
        <select name="status" defaultValue={resendable.includes(inputs.status) ? inputs.status : "dead"}>
          {resendable.map((status) => (
            <option key={status}>{status}</option>
          ))}
        </select>
      </label>
      <QueuedWindow from={inputs.from} to={inputs.to} />
    </CountedAction>
  );
}

/** Recover since T: every change committed since a time goes again (queued anew, or resent; one already pending is left). */
export function RecoverSince({ destinationId }: { destinationId: number }) {
  const zone = useDisplayZone();
  type Input = { destinationId: number; since: string };
  return (
    <CountedAction<Input>
      title="Recover since a time"
      testId="recover-count"
      read={(form) => {
        const since = instant(form.get("since"), zone);
        return since ? { destinationId, since } : "Set the time to recover from.";
      }}
      count={(input) =>
        mapped(previewRecovery(input), (counts) => ({
          n: counts.queued + counts.resent,
          text: `${plural(counts.queued + counts.resent, "change")} to send again (${counts.queued} never queued here, ${counts.resent} resent); ${counts.alreadyPending} already pending.`,
        }))
      }
      confirm={{
        label: (n) => `Recover ${plural(n, "change")}`,
        act: (input) =>
          mapped(
            recoverChanges(input),
            (counts) => `Recovering ${plural(counts.queued + counts.resent, "change")} (${counts.alreadyPending} already pending).`,
          ),
      }}
    >
      <label>
        Changes committed since
        <input type="datetime-local" name="since" required />
      </label>
    </CountedAction>
  );
}
