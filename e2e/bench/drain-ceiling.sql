-- bench:drain's database ceiling, run by pgbench on a copy of the backlog the worker drains: the
-- least database work an event needs on this schema, so the rate it reaches bounds any worker on
-- this machine. One pgbench transaction takes its client's next batch of events:
--   1. claim their pg-boss jobs in one statement (committed before processing, as a fetch is);
--   2. one transaction, one statement: lock the events and read their bodies, upsert their payments
--      and write one ledger entry per event the product's own run applied, settle the events,
--      complete the jobs.
-- Deliberately less than the engine does, so the ceiling stays an upper bound: no attempt count or
-- attempt history, no separate lock-and-decide read of the payment, no lock on ignored events'
-- payments.
-- ceiling_plan gives each client its own payments' jobs in batches b = 1, 2, … of at most :batch
-- events of distinct payments; i counts this client's transactions (pgbench keeps a client's
-- variables between them).
\set i :i + 1
UPDATE pgboss.job j SET state = 'active', started_on = now(), retry_count = j.retry_count + 1
  FROM ceiling_plan p
 WHERE p.client = :client_id AND p.b = :i AND j.name = p.name AND j.id = p.job_id;
BEGIN;
WITH event AS (
  SELECT i.id, i.provider, i.resource_id, length(i.raw_body) AS bytes, p.applies
    FROM webhook_inbox i JOIN ceiling_plan p ON p.inbox_id = i.id
   WHERE p.client = :client_id AND p.b = :i
     FOR UPDATE OF i
), payment AS (
  INSERT INTO payments AS pay (provider, gateway_charge_id, status, last_gateway_event_at)
  SELECT provider, resource_id, 'paid', now() FROM event WHERE applies
      ON CONFLICT (provider, gateway_charge_id) DO UPDATE SET status = excluded.status, updated_at = now()
  RETURNING id, provider, gateway_charge_id
), ledger AS (
  INSERT INTO payment_transitions (payment_id, inbox_id, to_status, to_amount_refunded, source)
  SELECT payment.id, event.id, 'paid', 0, 'event'
    FROM event JOIN payment ON payment.provider = event.provider AND payment.gateway_charge_id = event.resource_id
), settled AS (
  UPDATE webhook_inbox i
     SET status = CASE WHEN event.applies THEN 'processed' ELSE 'ignored' END,
         ignored_reason = CASE WHEN event.applies THEN NULL ELSE 'stale' END,
         processed_at = now(), next_attempt_at = NULL
    FROM event
   WHERE i.id = event.id
)
UPDATE pgboss.job j SET state = 'completed', completed_on = now()
  FROM ceiling_plan p
 WHERE p.client = :client_id AND p.b = :i AND j.name = p.name AND j.id = p.job_id;
COMMIT;
