import type { ReactNode } from "react";

// A collapsible JSON tree made of <details>/<summary>: keyboard- and screen-reader-friendly with
// no script, expanded to `openDepth` levels.

function scalar(value: unknown): ReactNode {
  if (value === null) return <span className="null">null</span>;
  if (typeof value === "string") return <span className="string">{JSON.stringify(value)}</span>;
  if (typeof value === "number") return <span className="number">{String(value)}</span>;
  if (typeof value === "boolean") return <span className="boolean">{String(value)}</span>;
  return <span>{JSON.stringify(value)}</span>;
}

function Node({ name, value, depth, openDepth }: { name: string | null; value: unknown; depth: number; openDepth: number }) {
  const label = name === null ? null : <span className="key">{JSON.stringify(name)}: </span>;
  if (value !== null && typeof value === "object") {
    const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
    const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
    if (entries.length === 0) {
      return (
        <div className="entry">
          {label}
          {open + close}
        </div>
      );
    }
    return (
      <details open={depth < openDepth}>
        <summary>
          {label}
          {open}{" "}
          <span className="muted">
            {entries.length} {Array.isArray(value) ? "items" : "keys"}
          </span>
        </summary>
        {entries.map(([key, item]) => (
          <Node key={key} name={Array.isArray(value) ? null : key} value={item} depth={depth + 1} openDepth={openDepth} />
        ))}
        <div className="entry">{close}</div>
      </details>
    );
  }
  return (
    <div className="entry">
      {label}
      {scalar(value)}
    </div>
  );
}

export function JsonViewer({ value, openDepth = 3 }: { value: unknown; openDepth?: number }) {
  return (
    <div className="json-tree">
      <Node name={null} value={value} depth={0} openDepth={openDepth} />
    </div>
  );
}
