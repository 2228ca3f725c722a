-- Reconciliation: where an inbox row came from, each run against a gateway's list API, and where
-- the next run of each gateway starts.

-- 'delivery': the gateway POSTed it (signature checked); 'reconcile': listed or fetched from the
-- gateway's authenticated API by a reconciliation run. Its received_at is when it was recovered.
ALTER TABLE webhook_inbox ADD COLUMN source varchar(20) NOT NULL DEFAULT 'delivery'
  CHECK (source IN ('delivery', 'reconcile'));

-- The ledger says why a payment moved: a state reconciliation saw on the gateway's API.
ALTER TABLE payment_transitions DROP CONSTRAINT payment_transitions_source_check;
ALTER TABLE payment_transitions ADD CONSTRAINT payment_transitions_source_check
  CHECK (source IN ('event', 'refetch', 'registration', 'reconcile'));

-- One run (schedule, CLI or console) of one gateway over one window. No foreign keys to
-- webhook_inbox: it is being partitioned by month.
CREATE TABLE reconcile_runs (
  id                bigserial PRIMARY KEY,
  provider          varchar(30)  NOT NULL,
  trigger           varchar(20)  NOT NULL,
  actor             varchar(320),
  window_start      timestamptz  NOT NULL,
  window_end        timestamptz  NOT NULL,
  status            varchar(20)  NOT NULL DEFAULT 'running',
  pages             integer      NOT NULL DEFAULT 0,
  listed            integer      NOT NULL DEFAULT 0,
  missing_ingested  integer      NOT NULL DEFAULT 0,
  repaired          integer      NOT NULL DEFAULT 0,
  stuck_refetched   integer      NOT NULL DEFAULT 0,
  errors            integer      NOT NULL DEFAULT 0,
  last_error        text,
  started_at        timestamptz  NOT NULL DEFAULT now(),
  finished_at       timestamptz
);
CREATE INDEX reconcile_runs_started_idx ON reconcile_runs (started_at DESC);
CREATE INDEX reconcile_runs_provider_started_idx ON reconcile_runs (provider, started_at DESC);

-- Per gateway: the window being listed and the page to list next (null: from its start). A run
-- that stops half-way (429, 5xx, an open circuit) leaves both, and the next run resumes there.
CREATE TABLE reconcile_cursors (
  provider      varchar(30)  PRIMARY KEY,
  window_start  timestamptz  NOT NULL,
  window_end    timestamptz  NOT NULL,
  page_token    text,
  complete      boolean      NOT NULL DEFAULT false,
  updated_at    timestamptz  NOT NULL DEFAULT now()
);
