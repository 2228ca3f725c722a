import type { ReactNode } from "react";

/** A list page's title, the CSV export of the list as filtered, and any further actions after it. */
export function ListHeader({
  title,
  exportHref,
  exportTestId,
  children,
}: {
  title: string;
  exportHref: string;
  exportTestId: string;
  children?: ReactNode;
}) {
  return (
    <div className="row">
      <h1>{title}</h1>
      <span className="spacer" />
      <a className="button" href={exportHref} download data-testid={exportTestId}>
        Export CSV
      </a>
      {children}
    </div>
  );
}
