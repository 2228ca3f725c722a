-- Which gateway account an event, a payment and a change belong to: the name of the account whose
-- URL received it, else the account its gateway names in the body (Stripe Connect's `account`,
-- Mercado Pago's `user_id`), else 'default' (the one account every installation had before).
-- A constant default is stored in the catalog (no table rewrite), and adding it to the partitioned
-- inbox adds it to every attached partition; archives written before it restore as 'default'.
ALTER TABLE webhook_inbox ADD COLUMN gateway_account text NOT NULL DEFAULT 'default';
ALTER TABLE payments ADD COLUMN gateway_account text NOT NULL DEFAULT 'default';
ALTER TABLE payment_changes ADD COLUMN gateway_account text NOT NULL DEFAULT 'default';

-- The console's account filter. Partial: every row of an installation with one account is
-- 'default' (no index could narrow that), so only the other accounts' rows are indexed, and the
-- migration builds indexes over nothing on an existing installation.
CREATE INDEX webhook_inbox_gateway_account_idx ON webhook_inbox (gateway_account, received_at, id)
    WHERE gateway_account <> 'default';
CREATE INDEX payments_gateway_account_idx ON payments (gateway_account, updated_at, id)
    WHERE gateway_account <> 'default';
