-- Version 18: a run's thresholds (sledge run --threshold, the spec's
-- thresholds) with their verdicts, judged on the measured window's result
-- (threshold.Verdict). value is NULL where it could not be measured (note
-- says why; such a threshold fails).
CREATE TABLE job_threshold (
    job_id      INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    threshold   TEXT    NOT NULL, -- as given: "p99(new_order)<50ms"
    metric      TEXT    NOT NULL,
    name        TEXT    NOT NULL, -- transaction type or error class; '' for all
    op          TEXT    NOT NULL,
    limit_value REAL    NOT NULL, -- in unit
    unit        TEXT    NOT NULL, -- ms, s, us, % or ''
    value       REAL,             -- measured, in unit
    passed      INTEGER NOT NULL CHECK (passed IN (0, 1)),
    note        TEXT    NOT NULL,
    PRIMARY KEY (job_id, ord)
) STRICT;
