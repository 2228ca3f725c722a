-- Retention: the payloads of settled events move to archive files; the row stays, and with it the
-- dedupe key (provider, event_id), the status, the attempts and the payment ledger.

-- Metadata-only changes: no table rewrite, no long lock on a large inbox.
ALTER TABLE webhook_inbox ALTER COLUMN raw_body DROP NOT NULL;
ALTER TABLE webhook_inbox ADD COLUMN archived_at TIMESTAMPTZ(6);
-- Relative to ARCHIVE_DIR: <provider>/<received day>.ndjson.gz
ALTER TABLE webhook_inbox ADD COLUMN archive_file VARCHAR(200);
-- sha256 of the raw body, kept in the database so a restore is checked against more than the file.
ALTER TABLE webhook_inbox ADD COLUMN archive_sha256 CHAR(64);

-- Only settled events are archived, and an archived event has no raw body until it is restored:
-- replay and processing can never act on a purged row. NOT VALID + VALIDATE avoids holding a
-- strong lock while existing rows are checked.
ALTER TABLE webhook_inbox ADD CONSTRAINT webhook_inbox_archived_check
    CHECK (CASE WHEN archived_at IS NULL THEN raw_body IS NOT NULL
                ELSE status IN ('processed', 'ignored') AND raw_body IS NULL AND archive_sha256 IS NOT NULL END) NOT VALID;
ALTER TABLE webhook_inbox VALIDATE CONSTRAINT webhook_inbox_archived_check;

-- Archiving candidates. Partial: ingest inserts pending rows, which this index never holds.
CREATE INDEX webhook_inbox_unarchived_settled_idx ON webhook_inbox (received_at, id)
    WHERE archived_at IS NULL AND status IN ('processed', 'ignored');
-- Restores by provider and day.
CREATE INDEX webhook_inbox_archived_idx ON webhook_inbox (provider, received_at) WHERE archived_at IS NOT NULL;
