-- Version 12: intervals of a run's series that were never stored, and why
-- (the jobs repository could not be written and the interval could not be
-- kept in a spool file either, or the spool lost it): a series never has a
-- silent hole.
CREATE TABLE job_interval_missing (
    job_id INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    seq    INTEGER NOT NULL,
    reason TEXT    NOT NULL,
    PRIMARY KEY (job_id, seq)
) STRICT;
