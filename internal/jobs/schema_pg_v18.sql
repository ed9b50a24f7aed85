-- Version 18: a run's thresholds (sledge run --threshold, the spec's
-- thresholds) with their verdicts, judged on the measured window's result
-- (threshold.Verdict). value is NULL where it could not be measured (note
-- says why; such a threshold fails).
CREATE TABLE job_threshold (
    job_id      bigint  NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    ord         bigint  NOT NULL,
    threshold   text    NOT NULL, -- as given: "p99(new_order)<50ms"
    metric      text    NOT NULL,
    name        text    NOT NULL, -- transaction type or error class; '' for all
    op          text    NOT NULL,
    limit_value double precision NOT NULL, -- in unit
    unit        text    NOT NULL, -- ms, s, us, % or ''
    value       double precision, -- measured, in unit
    passed      boolean NOT NULL,
    note        text    NOT NULL,
    PRIMARY KEY (job_id, ord)
);
