-- v6: an audit item's tolerance as data — the accepted range, the sample it
-- was judged on, its verdict (ok, OFF, n/a: too few to judge) and a note —
-- so a stored result shows what the live one showed.
ALTER TABLE job_audit ADD COLUMN low REAL;
ALTER TABLE job_audit ADD COLUMN high REAL;
ALTER TABLE job_audit ADD COLUMN n INTEGER NOT NULL DEFAULT 0;
ALTER TABLE job_audit ADD COLUMN verdict TEXT NOT NULL DEFAULT '';
ALTER TABLE job_audit ADD COLUMN note TEXT NOT NULL DEFAULT '';
