-- Version 14: each virtual user's timing per transaction type over the
-- measured window (metrics.VUTiming), kept when the run asked for it
-- (per_vu_timing; HammerDB's timeprofile). job_timing stays the run's.
CREATE TABLE job_vu_timing (
    job_id    bigint  NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    vu        bigint  NOT NULL, -- 1-based, the run's numbering
    tx        text    NOT NULL,
    calls     bigint  NOT NULL, -- completed: commits and designed rollbacks
    total_us  double precision NOT NULL, -- their latencies' exact sum
    histogram bytea,            -- hdrhistogram-go V2 compressed, base64; two significant digits
    PRIMARY KEY (job_id, vu, tx)
);
