-- The gateway accounts kept in the database (besides the default account and those the environment
-- names, <PROVIDER>_ACCOUNTS): each receives on /api/webhooks/{provider}/{name} with its own secrets
-- and reads its gateway's API with its own credentials (lib/gateway-accounts).
--   sealed               AES-256-GCM (lib/crypto/sealed-box.ts) under ACCOUNT_SECRETS_KEY: the JSON of
--                        its webhook secrets (newest first) and API credentials. Never shown back.
--   secret_fingerprints  what may be shown of them: per secret, the first 8 hex digits of its SHA-256
--                        and when it was added; per credential, the same.
--   gateway_account_id   the gateway's own id of the account as its events name it (Stripe Connect's
--                        acct_..., a Mercado Pago seller's user_id); null: the name is that id.
--   version              from a sequence, new on every change: each process's cache compares
--                        (max(version), count(*)) to see that something changed, then reads only the
--                        rows whose version it doesn't have.
CREATE SEQUENCE gateway_accounts_version_seq;
CREATE TABLE gateway_accounts (
  provider                varchar(30)   NOT NULL,
  name                    varchar(100)  NOT NULL,
  enabled                 boolean       NOT NULL DEFAULT true,
  gateway_account_id      varchar(200),
  sealed                  text          NOT NULL,
  secret_fingerprints     jsonb         NOT NULL DEFAULT '[]',
  credential_fingerprints jsonb         NOT NULL DEFAULT '{}',
  version                 bigint        NOT NULL DEFAULT nextval('gateway_accounts_version_seq'),
  created_at              timestamptz   NOT NULL DEFAULT now(),
  updated_at              timestamptz   NOT NULL DEFAULT now(),
  PRIMARY KEY (provider, name)
);
ALTER SEQUENCE gateway_accounts_version_seq OWNED BY gateway_accounts.version;
-- An event names one gateway id: at most one account stands for it.
CREATE UNIQUE INDEX gateway_accounts_gateway_id_key ON gateway_accounts (provider, (COALESCE(gateway_account_id, name)));

-- Reconciliation per account: each account is listed with its own credentials from a cursor of its
-- own, and its runs say which account they read. Existing rows are the default account's.
ALTER TABLE reconcile_cursors ADD COLUMN gateway_account text NOT NULL DEFAULT 'default';
ALTER TABLE reconcile_cursors DROP CONSTRAINT reconcile_cursors_pkey;
ALTER TABLE reconcile_cursors ADD PRIMARY KEY (provider, gateway_account);
ALTER TABLE reconcile_runs ADD COLUMN gateway_account text NOT NULL DEFAULT 'default';
-- When each account's last scheduled run started, without reading every run.
CREATE INDEX reconcile_runs_schedule_idx ON reconcile_runs (provider, gateway_account, started_at DESC) WHERE trigger = 'schedule';
