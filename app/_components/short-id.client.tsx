"use client";

import { CopyButton } from "./copy-button.client";

/** A long id shortened to its ends ("evt_1a2b3c…9f0e"), the whole id on hover and a copy button. */
export function ShortId({ value, label }: { value: string | null; label: string }) {
  if (!value) return <span className="muted">—</span>;
  const short = value.length > 16 ? `${value.slice(0, 10)}…${value.slice(-4)}` : value;
  return (
    <span className="id-short">
      <span className="mono" title={value}>
        {short}
      </span>
      {short !== value ? <CopyButton text={value} label="Copy" ariaLabel={`Copy ${label} ${value}`} /> : null}
    </span>
  );
}
