-- Events search by fragment: prefixes of event ids, charge ids, customer e-mails and customer ids
-- (LIKE 'term%') read a text_pattern_ops b-tree in order. Such an index also serves equality, so
-- it replaces the plain one on each column rather than adding a second index to every insert.
DROP INDEX webhook_inbox_event_id_idx;
CREATE INDEX webhook_inbox_event_id_idx ON webhook_inbox (event_id text_pattern_ops);
DROP INDEX webhook_inbox_resource_id_idx;
CREATE INDEX webhook_inbox_resource_id_idx ON webhook_inbox (resource_id text_pattern_ops) WHERE resource_id IS NOT NULL;
DROP INDEX webhook_inbox_customer_email_idx;
CREATE INDEX webhook_inbox_customer_email_idx ON webhook_inbox (customer_email text_pattern_ops) WHERE customer_email IS NOT NULL;
DROP INDEX webhook_inbox_customer_id_idx;
CREATE INDEX webhook_inbox_customer_id_idx ON webhook_inbox (customer_id text_pattern_ops) WHERE customer_id IS NOT NULL;
