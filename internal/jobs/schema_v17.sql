-- Version 17: jobs imported from another repository (sledge jobs import):
-- where each came from. A job with a row here is read-only: only deleting
-- it is allowed. The origin is the first repository's, also for a job
-- exported again after it was imported.
CREATE TABLE job_origin (
    job_id         INTEGER PRIMARY KEY REFERENCES job (id) ON DELETE CASCADE,
    origin_id      INTEGER NOT NULL, -- the job's id in the repository it was recorded in
    host           TEXT    NOT NULL, -- the host that exported it first
    repository     TEXT    NOT NULL, -- that repository, redacted: a file's base name, a URL without its user
    sledge_version TEXT    NOT NULL, -- the Sledge that exported it first
    exported_at    TEXT    NOT NULL,
    imported_at    TEXT    NOT NULL  -- into this repository
);
