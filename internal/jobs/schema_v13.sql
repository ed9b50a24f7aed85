-- Version 13: the agents of a group run judged by their progress, not only
-- by their signs of life, and the silence of an agent that was counted lost
-- and came back. Times are on the repository's clock, as last_seen.
ALTER TABLE job_agent ADD COLUMN last_progress TEXT; -- when it last handed in an interval; NULL before its first
ALTER TABLE job_agent ADD COLUMN silent_from   TEXT; -- its last sign of life (or of progress) before another agent counted it lost; NULL when never
ALTER TABLE job_agent ADD COLUMN lost_at       TEXT; -- when another agent counted it lost
ALTER TABLE job_agent ADD COLUMN back_at       TEXT; -- its first sign after that; NULL when it did not come back: what it handed in from then on is late
