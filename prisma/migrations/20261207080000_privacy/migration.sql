-- Subject erasure and PII_AT_REST=redact (docs/privacy.md). A redacted row keeps what its original
-- bytes proved: their SHA-256, and when their signature was verified (a redacted body can't be).
ALTER TABLE webhook_inbox
    ADD COLUMN original_sha256 char(64),
    ADD COLUMN signature_verified_at timestamptz,
    ADD COLUMN redacted_at timestamptz;

-- One erasure (or its dry run) of one data subject. `scope` holds the subject's identifiers and
-- what they were found in only while the job runs (it resumes from it), and is cleared when it
-- ends; the audit trail keeps subject_hash, a keyed hash, never the identifier.
CREATE TABLE privacy_erasures (
    id bigserial PRIMARY KEY,
    actor varchar(320) NOT NULL,
    subject_kind varchar(20) NOT NULL,
    subject_hash char(64) NOT NULL,
    provider varchar(30),
    scope jsonb,
    status varchar(20) NOT NULL DEFAULT 'queued',
    counts jsonb NOT NULL DEFAULT '{}',
    payments bigint[] NOT NULL DEFAULT '{}',
    error text,
    created_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz
);
CREATE INDEX privacy_erasures_created_idx ON privacy_erasures (created_at DESC);

-- Keyed hashes (HMAC-SHA256 under PRIVACY_HASH_KEY) of every identifier an erasure removed: a later
-- delivery naming one is stored already redacted.
CREATE TABLE erased_identifiers (
    hash char(64) PRIMARY KEY,
    erasure_id bigint NOT NULL,
    erased_at timestamptz NOT NULL DEFAULT now()
);

-- An erased payment's customer is '[redacted]': not an e-mail, so not a suggestion of the customer search.
CREATE OR REPLACE FUNCTION customer_emails_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.customer_email IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM payments WHERE customer_email = OLD.customer_email) THEN
        DELETE FROM customer_emails WHERE email = OLD.customer_email;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.customer_email IS NOT NULL AND NEW.customer_email <> '[redacted]' THEN
        INSERT INTO customer_emails (email) VALUES (NEW.customer_email) ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;
