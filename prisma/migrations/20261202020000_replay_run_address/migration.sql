-- The client address of whoever started a bulk replay, for the audit rows its worker writes.
ALTER TABLE replay_runs ADD COLUMN ip varchar(64);
