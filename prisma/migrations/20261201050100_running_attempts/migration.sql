-- The dead-worker check (lib/inbox/reclaim-dead-worker-jobs.ts) reads the attempts still running
-- every few seconds: a partial index keeps that read small however long the attempt history grows.
CREATE INDEX processing_attempts_running_idx ON processing_attempts (worker) WHERE outcome = 'running';
