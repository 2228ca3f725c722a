"use client";

import Link from "next/link";
import { CopyButton } from "./copy-button.client";

/**
 * An id shown whole (ids are what support reads out and pastes elsewhere), wrapping anywhere rather
 * than cut, with a copy button; a link when it names a page (a charge's payment, an event).
 */
export function FullId({ value, label, href }: { value: string | null; label: string; href?: string | null }) {
  if (!value) return <span className="muted">—</span>;
  return (
    <span className="id-full">
      {href ? (
        <Link className="mono" href={href}>
          {value}
        </Link>
      ) : (
        <span className="mono">{value}</span>
      )}
      <CopyButton text={value} label="Copy" ariaLabel={`Copy ${label} ${value}`} />
    </span>
  );
}
