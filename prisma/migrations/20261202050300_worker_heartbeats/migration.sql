-- Each worker's last sign of life, written every few seconds: the console shows which workers are
-- alive and raises "no worker alive" when none has beaten recently while events wait.
CREATE TABLE worker_heartbeats (
    worker     VARCHAR(200)   PRIMARY KEY,
    started_at TIMESTAMPTZ(6) NOT NULL DEFAULT now(),
    beat_at    TIMESTAMPTZ(6) NOT NULL DEFAULT now()
);
