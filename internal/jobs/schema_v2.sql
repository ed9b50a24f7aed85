-- Version 2: how retries went, per transaction type: transactions retried at
-- least once, those that failed all the same, and the retries by the error
-- class that caused them.

ALTER TABLE job_timing ADD COLUMN retried INTEGER NOT NULL DEFAULT 0;
ALTER TABLE job_timing ADD COLUMN failed_after_retries INTEGER NOT NULL DEFAULT 0;

CREATE TABLE job_retry (
    job_id INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    tx     TEXT    NOT NULL,
    class  TEXT    NOT NULL,
    count  INTEGER NOT NULL,
    PRIMARY KEY (job_id, tx, class)
) STRICT, WITHOUT ROWID;
