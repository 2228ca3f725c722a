"use client";

import { useState, useTransition } from "react";
import { StatusBadge } from "@/app/_components/status-badge";
import { debugSignature } from "./actions";

export type DebuggerPrefill = {
  provider: "stripe" | "standard";
  payload: string;
  signatureHeader: string;
  webhookId: string;
  webhookTimestamp: string;
  truncated: boolean;
};

type Diagnosis = { verdict: string; ok: boolean; message: string };

const VERDICT_WORDS: Record<string, string> = {
  header: "header problem",
  secret: "secret problem",
  encoding: "encoding problem",
  algorithm: "wrong algorithm",
  payload: "payload changed",
  timestamp: "timestamp problem",
};

export function SignatureDebugger({ prefill }: { prefill: DebuggerPrefill | null }) {
  const [provider, setProvider] = useState<"stripe" | "standard">(prefill?.provider ?? "stripe");
  const [result, setResult] = useState<Diagnosis | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  return (
    <form
      className="panel"
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        const text = (name: string) => String(form.get(name) ?? "");
        const input =
          provider === "stripe"
            ? { provider, payload: text("payload"), secret: text("secret"), signatureHeader: text("signatureHeader") }
            : {
                provider,
                payload: text("payload"),
                secret: text("secret"),
                signatureHeader: text("signatureHeader"),
                webhookId: text("webhookId"),
                webhookTimestamp: text("webhookTimestamp"),
              };
        startTransition(async () => {
          const answer = await debugSignature(input);
          if (answer.ok) {
            setResult(answer.data);
            setError(null);
          } else {
            setError(answer.error);
            setResult(null);
          }
        });
      }}
    >
      {prefill?.truncated ? (
        <p className="banner warn">The stored body was truncated to its first 2 KiB: paste the full payload for a conclusive answer.</p>
      ) : null}
      <div className="row">
        <label>
          Scheme
          <select value={provider} onChange={(event) => setProvider(event.target.value as "stripe" | "standard")} name="provider">
            <option value="stripe">Stripe (Stripe-Signature)</option>
            <option value="standard">Standard Webhooks (webhook-*)</option>
          </select>
        </label>
        <label style={{ flex: 1 }}>
          Secret
          <input name="secret" type="password" autoComplete="off" required placeholder="whsec_…" />
        </label>
      </div>
      {provider === "standard" ? (
        <div className="row">
          <label>
            webhook-id
            <input name="webhookId" defaultValue={prefill?.webhookId} required size={34} />
          </label>
          <label>
            webhook-timestamp
            <input name="webhookTimestamp" defaultValue={prefill?.webhookTimestamp} required size={14} />
          </label>
        </div>
      ) : null}
      <label>
        {provider === "stripe" ? "Stripe-Signature header" : "webhook-signature header"}
        <input name="signatureHeader" defaultValue={prefill?.signatureHeader} required />
      </label>
      <label>
        Payload (the raw body, exactly as sent)
        <textarea name="payload" rows={8} defaultValue={prefill?.payload} required />
      </label>
      <p>
        <button className="primary" type="submit" disabled={pending}>
          {pending ? "Checking…" : "Check signature"}
        </button>
      </p>
      {error ? (
        <p role="alert" className="banner bad">
          {error}
        </p>
      ) : null}
      {result ? (
        <div role="status" className={`banner ${result.ok ? "ok" : "bad"}`} data-testid="diagnosis">
          <StatusBadge status={result.ok ? "valid" : "invalid"} /> {result.ok ? null : <strong>{VERDICT_WORDS[result.verdict]}: </strong>}
          {result.message}
        </div>
      ) : null}
    </form>
  );
}
