-- A bulk replay records the last event id of each committed batch, so a run whose worker died
-- resumes after it instead of starting over or staying "running" forever.
ALTER TABLE replay_runs ADD COLUMN resume_after_id bigint NOT NULL DEFAULT 0;
