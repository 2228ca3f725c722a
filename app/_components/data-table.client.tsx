"use client";

import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useTransition, type KeyboardEvent, type ReactNode } from "react";
import {
  createColumnHelper,
  rowSortingFeature,
  tableFeatures,
  useTable,
  type ColumnDef,
  type RowData,
  type SortingState,
} from "@tanstack/react-table";

/** How a column looks: right-aligned figures, monospace ids, and the URL key it sorts by (if any). */
export type DataColumnMeta = { numeric?: boolean; mono?: boolean; sortKey?: string };

export const dataTableFeatures = tableFeatures({ rowSortingFeature, columnMeta: {} as DataColumnMeta });
export type DataTableFeatures = typeof dataTableFeatures;
// Each column's value type differs; the table only renders them, so they meet as `any` (as the
// helper's own `columns()` returns them).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type DataColumns<Row extends RowData> = ColumnDef<DataTableFeatures, Row, any>[];

/** The column helper every console table declares its columns with. */
export const dataColumns = <Row extends RowData>() => createColumnHelper<DataTableFeatures, Row>();

/** Server paging: the pages are links the server computed; the summary carries the total. */
export type DataTablePaging = { summary: string; prevHref: string | null; nextHref: string | null; testId?: string; extra?: ReactNode };

/** The sort the server applied, spelled as the URL's `sort` parameter: `<sortKey>_asc|desc`. */
export type DataTableSort = { key: string; desc: boolean; param?: string };

type Props<Row extends RowData> = {
  label: string;
  columns: DataColumns<Row>;
  rows: Row[];
  rowKey: (row: Row) => string;
  empty: ReactNode;
  sort?: DataTableSort;
  paging?: DataTablePaging;
  /** Rows that open a page: focusable, Enter opens, arrow keys move between rows. */
  rowHref?: (row: Row) => string;
  /** data-* attributes, aria-current and an accessible name per row. */
  rowProps?: (row: Row) => Record<string, string | undefined>;
  testId?: string;
};

/** A column's id as the table gives it: its own, else its accessor key with dots as underscores. */
function columnIdOf<Row extends RowData>(column: DataColumns<Row>[number]): string | undefined {
  if (column.id) return column.id;
  return "accessorKey" in column && column.accessorKey !== undefined ? String(column.accessorKey).replaceAll(".", "_") : undefined;
}

/** Arrow keys move between rows, Enter opens the focused row. */
function onRowKey(event: KeyboardEvent<HTMLTableRowElement>, open: () => void) {
  if (event.target !== event.currentTarget) return;
  const row = event.currentTarget;
  if (event.key === "Enter") {
    event.preventDefault();
    open();
  } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
    event.preventDefault();
    const next = (event.key === "ArrowDown" ? row.nextElementSibling : row.previousElementSibling) as HTMLElement | null;
    next?.focus();
  }
}

function Pager({ paging }: { paging: DataTablePaging }) {
  return (
    <nav className="pager" aria-label="Pages">
      {paging.prevHref ? (
        <Link href={paging.prevHref} rel="prev">
          « Previous
        </Link>
      ) : (
        <span aria-disabled="true">« Previous</span>
      )}
      <span data-testid={paging.testId}>{paging.summary}</span>
      {paging.nextHref ? (
        <Link href={paging.nextHref} rel="next">
          Next »
        </Link>
      ) : (
        <span aria-disabled="true">Next »</span>
      )}
      {/* The extra is its wrapper's only child: an element a server page made can arrive still
          streaming, unchecked, and among siblings React takes it for a list item without a key. */}
      {paging.extra ? <span className="pager-extra">{paging.extra}</span> : null}
    </nav>
  );
}

type SortChoice = { id: string; header: string };

/**
 * The cards' sort control (below 800 px the header buttons are out of sight): the same sortable
 * columns and the same URL sort, applied by a button so choosing an option never navigates away.
 */
function CardSort({
  label,
  choices,
  current,
  onSort,
}: {
  label: string;
  choices: SortChoice[];
  current: { id: string; desc: boolean } | undefined;
  onSort: (id: string, desc: boolean) => void;
}) {
  return (
    <form
      method="get"
      className="card-sort"
      aria-label={`Sort ${label}`}
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        onSort(String(form.get("column")), form.get("direction") === "desc");
      }}
    >
      <label>
        Sort by
        <select name="column" defaultValue={current?.id}>
          {choices.map((choice) => (
            <option key={choice.id} value={choice.id}>
              {choice.header}
            </option>
          ))}
        </select>
      </label>
      <label>
        Order
        <select name="direction" defaultValue={current?.desc ? "desc" : "asc"}>
          <option value="asc">ascending</option>
          <option value="desc">descending</option>
        </select>
      </label>
      <button type="submit">Sort</button>
    </form>
  );
}

/**
 * The console's one table: rows (view objects) come from the server already filtered, sorted and
 * paged; a sortable header changes the URL's `sort` and the server answers. Below 800 px each row
 * becomes a card of label/value lines (the `stack` layout), so nothing scrolls sideways, and a sort
 * control above the cards sets the same sorting state as the headers.
 */
export function DataTable<Row extends RowData>({
  label,
  columns,
  rows,
  rowKey,
  empty,
  sort,
  paging,
  rowHref,
  rowProps,
  testId,
}: Props<Row>) {
  const router = useRouter();
  const pathname = usePathname();
  const searchParams = useSearchParams();
  const [loading, startTransition] = useTransition();
  const sortColumn = sort ? columns.find((column) => column.meta?.sortKey === sort.key) : undefined;
  const sortColumnId = sortColumn ? columnIdOf(sortColumn) : undefined;
  const sorting: SortingState = sortColumnId ? [{ id: sortColumnId, desc: sort!.desc }] : [];
  const table = useTable({
    features: dataTableFeatures,
    columns,
    data: rows,
    getRowId: (row) => rowKey(row),
    state: { sorting },
    manualSorting: true,
    enableSortingRemoval: false,
    onSortingChange: (updater) => {
      const first = (typeof updater === "function" ? updater(sorting) : updater)[0];
      const key = first ? table.getColumn(first.id)?.columnDef.meta?.sortKey : undefined;
      if (!first || !key) return;
      const params = new URLSearchParams(searchParams.toString());
      params.set(sort?.param ?? "sort", `${key}_${first.desc ? "desc" : "asc"}`);
      for (const name of ["cursor", "before", "page"]) params.delete(name);
      startTransition(() => router.push(`${pathname}?${params.toString()}`));
    },
  });
  if (rows.length === 0) return <p className="panel muted">{empty}</p>;
  const sortChoices: SortChoice[] = sort
    ? table
        .getAllLeafColumns()
        .filter((column) => column.columnDef.meta?.sortKey)
        .map((column) => ({ id: column.id, header: String(column.columnDef.header) }))
    : [];
  return (
    <>
      {sortChoices.length > 0 ? (
        <CardSort
          key={sorting[0] ? `${sorting[0].id}_${sorting[0].desc}` : "none"}
          label={label}
          choices={sortChoices}
          current={sorting[0]}
          onSort={(id, desc) => table.setSorting([{ id, desc }])}
        />
      ) : null}
      <div className="table-wrap" aria-busy={loading || undefined}>
        <table className={`data stack${loading ? " loading" : ""}`} aria-label={label} data-testid={testId}>
          <thead>
            {table.getHeaderGroups().map((group) => (
              <tr key={group.id}>
                {group.headers.map((header) => {
                  const meta = header.column.columnDef.meta;
                  const sorted = header.column.getIsSorted();
                  return (
                    <th
                      key={header.id}
                      className={meta?.numeric ? "num" : undefined}
                      aria-sort={sorted ? (sorted === "desc" ? "descending" : "ascending") : undefined}
                    >
                      {meta?.sortKey && sort ? (
                        // Every sortable header is a Tab stop, so a keyboard sorts by any column; the th's aria-sort says the state, the arrow only shows it.
                        <button type="button" className="sort" onClick={header.column.getToggleSortingHandler()}>
                          <table.FlexRender header={header} />{" "}
                          <span aria-hidden="true">{sorted === "desc" ? "▼" : sorted === "asc" ? "▲" : "↕"}</span>
                        </button>
                      ) : (
                        <table.FlexRender header={header} />
                      )}
                    </th>
                  );
                })}
              </tr>
            ))}
          </thead>
          <tbody>
            {table.getRowModel().rows.map((row) => {
              const href = rowHref?.(row.original);
              return (
                <tr
                  key={row.id}
                  {...rowProps?.(row.original)}
                  tabIndex={href ? 0 : undefined}
                  onKeyDown={href ? (event) => onRowKey(event, () => router.push(href)) : undefined}
                >
                  {row.getAllCells().map((cell) => {
                    const meta = cell.column.columnDef.meta;
                    return (
                      <td
                        key={cell.id}
                        data-label={String(cell.column.columnDef.header)}
                        data-col={cell.column.id}
                        className={[meta?.numeric ? "num" : "", meta?.mono ? "mono" : ""].join(" ").trim() || undefined}
                      >
                        <table.FlexRender cell={cell} />
                      </td>
                    );
                  })}
                </tr>
              );
            })}
          </tbody>
        </table>
        {loading ? (
          <p className="muted" role="status">
            Loading…
          </p>
        ) : null}
      </div>
      {paging ? <Pager paging={paging} /> : null}
    </>
  );
}
