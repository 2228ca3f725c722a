// The inbox's search indexes (the payload's GIN, the id trigram GINs) hold settled events only, so
// that ingest writes none of them (migration 20261211010000_settled_search_indexes). A search that
// reads one asks for settled rows in the index's own words, and for pending rows apart: those the
// (status, received_at) b-tree lists, a backlog's worth, tested row by row.

/** The partial search indexes' predicate, as a query must state it for PostgreSQL to use them. */
export const SETTLED_ROWS = "status <> 'pending'";

/** The rows the partial search indexes leave out. */
export const PENDING_ROWS = "status = 'pending'";
