-- Version 19: the analytic half of a mixed run (workload chbench with
-- analytic streams, metrics.MixedResult): the transactions' rates over the
-- baseline (before the streams started) and the mixed part of the window,
-- the streams' throughput and freshness, and every query execution. A
-- figure that could not be measured is NULL.
CREATE TABLE job_mixed (
    job_id              INTEGER NOT NULL PRIMARY KEY REFERENCES job (id) ON DELETE CASCADE,
    streams             INTEGER NOT NULL,
    query_order         TEXT    NOT NULL, -- paper or shuffled
    seed                INTEGER NOT NULL,
    delay_s             REAL    NOT NULL,
    rampup_s            REAL    NOT NULL,
    baseline_s          REAL    NOT NULL,
    baseline_nopm       REAL,
    baseline_tpm        REAL,
    mixed_s             REAL    NOT NULL,
    mixed_nopm          REAL,
    mixed_tpm           REAL,
    interference        REAL,
    analytic_s          REAL    NOT NULL,
    queries             INTEGER NOT NULL,
    query_errors        INTEGER NOT NULL,
    query_sets          INTEGER NOT NULL,
    query_sets_per_hour REAL,
    freshness_p50_s     REAL,
    freshness_max_s     REAL
) STRICT;
CREATE TABLE job_mixed_query (
    job_id      INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    stream      INTEGER NOT NULL,
    query_set   INTEGER NOT NULL,
    position    INTEGER NOT NULL,
    query       INTEGER NOT NULL,
    start_s     REAL    NOT NULL, -- on the run's clock, as an interval's elapsed
    end_s       REAL    NOT NULL,
    seconds     REAL    NOT NULL,
    row_count   INTEGER NOT NULL,
    freshness_s REAL,
    error       TEXT    NOT NULL,
    PRIMARY KEY (job_id, ord)
) STRICT;
-- Each transaction type's latencies over the baseline and the mixed part
-- (part: baseline or mixed), from the parts' intervals' histograms merged.
CREATE TABLE job_mixed_tx (
    job_id INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    part   TEXT    NOT NULL,
    ord    INTEGER NOT NULL,
    tx     TEXT    NOT NULL,
    count  INTEGER NOT NULL,
    p50_us INTEGER NOT NULL,
    p95_us INTEGER NOT NULL,
    p99_us INTEGER NOT NULL,
    max_us INTEGER NOT NULL,
    PRIMARY KEY (job_id, part, ord)
) STRICT;
