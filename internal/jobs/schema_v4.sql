-- Version 4: each virtual user's state and work per interval, for the live
-- view (which VUs run, reconnect or stopped).

CREATE TABLE job_interval_vu (
    job_id  INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,
    vu      INTEGER NOT NULL, -- 1-based
    state   TEXT    NOT NULL, -- starting | running | reconnecting | stopped
    commits INTEGER NOT NULL,
    errors  INTEGER NOT NULL,
    PRIMARY KEY (job_id, seq, vu)
) STRICT, WITHOUT ROWID;
