-- Every customer e-mail the payments name, once each, kept by triggers: a part of an e-mail typed
-- into a search ("omer42") is matched here by trigram, among tens of thousands of distinct e-mails,
-- instead of among every payment (millions, dozens per customer), which no index could stop early.
-- The search then finds payments and events by the few e-mails it resolved, through their b-trees.
CREATE TABLE customer_emails (
    email VARCHAR(320) PRIMARY KEY
);
CREATE INDEX customer_emails_email_trgm_idx ON customer_emails USING GIN (email gin_trgm_ops);

-- An e-mail leaves with the last payment naming it (payments are only deleted by hand, say to
-- erase a customer), so nothing personal outlives its payments here.
CREATE FUNCTION customer_emails_track() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.customer_email IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM payments WHERE customer_email = OLD.customer_email) THEN
        DELETE FROM customer_emails WHERE email = OLD.customer_email;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.customer_email IS NOT NULL THEN
        INSERT INTO customer_emails (email) VALUES (NEW.customer_email) ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END
$$;

CREATE FUNCTION customer_emails_clear() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM customer_emails;
    RETURN NULL;
END
$$;

CREATE TRIGGER customer_emails_insert AFTER INSERT ON payments
    FOR EACH ROW WHEN (NEW.customer_email IS NOT NULL) EXECUTE FUNCTION customer_emails_track();
CREATE TRIGGER customer_emails_update AFTER UPDATE OF customer_email ON payments
    FOR EACH ROW WHEN (OLD.customer_email IS DISTINCT FROM NEW.customer_email) EXECUTE FUNCTION customer_emails_track();
CREATE TRIGGER customer_emails_delete AFTER DELETE ON payments
    FOR EACH ROW WHEN (OLD.customer_email IS NOT NULL) EXECUTE FUNCTION customer_emails_track();
CREATE TRIGGER customer_emails_truncate AFTER TRUNCATE ON payments
    FOR EACH STATEMENT EXECUTE FUNCTION customer_emails_clear();

LOCK TABLE payments IN SHARE MODE;
INSERT INTO customer_emails (email) SELECT DISTINCT customer_email FROM payments WHERE customer_email IS NOT NULL;

-- Searches no longer match parts of e-mails among payments: the trigram index there only cost writes.
DROP INDEX payments_customer_email_trgm_idx;
