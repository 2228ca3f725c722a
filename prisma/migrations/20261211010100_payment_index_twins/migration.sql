-- Each of these default b-trees has a text_pattern_ops twin on the same column (migration
-- 20261201080000_customer_search_replay_history), which serves equality as well as prefixes: no
-- query sorts or compares these columns in the collation's order. Every payment insert, and every
-- update that moves the row off its page, wrote both.
DROP INDEX payments_customer_email_idx;
DROP INDEX payments_customer_id_idx;
DROP INDEX payments_gateway_charge_id_idx;
