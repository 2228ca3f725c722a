"use client";

import Link from "next/link";
import { CopyButton } from "./copy-button.client";

// Where an id may wrap: after its separators, never inside a piece ("ch_sim_11_" / "gebwnh", not "gebwn" / "h").
const PIECES = /(?<=[_\-.:/])/;

/**
 * An id shown whole where it fits (ids are what support reads out and pastes elsewhere), wrapping
 * only after a separator; a piece too wide for the room ends in an ellipsis, the whole id in the
 * title and behind the copy button. A link when it names a page (a charge's payment, an event).
 */
export function FullId({ value, label, href }: { value: string | null; label: string; href?: string | null }) {
  if (!value) return <span className="muted">—</span>;
  const pieces = value.split(PIECES).map((piece, index) => (
    <span className="id-part" key={index}>
      {piece}
    </span>
  ));
  return (
    <span className="id-full">
      {href ? (
        <Link className="mono" href={href} title={value}>
          {pieces}
        </Link>
      ) : (
        <span className="mono" title={value}>
          {pieces}
        </span>
      )}
      <CopyButton text={value} label="Copy" ariaLabel={`Copy ${label} ${value}`} />
    </span>
  );
}
