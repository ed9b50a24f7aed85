-- Version 19: the analytic half of a mixed run (workload chbench with
-- analytic streams, metrics.MixedResult): the transactions' rates over the
-- baseline (before the streams started) and the mixed part of the window,
-- the streams' throughput and freshness, and every query execution. A
-- figure that could not be measured is NULL.
CREATE TABLE job_mixed (
    job_id              bigint NOT NULL PRIMARY KEY REFERENCES job (id) ON DELETE CASCADE,
    streams             bigint  NOT NULL,
    query_order         text    NOT NULL, -- paper or shuffled
    seed                bigint  NOT NULL,
    delay_s             double precision NOT NULL,
    rampup_s            double precision NOT NULL,
    baseline_s          double precision NOT NULL,
    baseline_nopm       double precision,
    baseline_tpm        double precision,
    mixed_s             double precision NOT NULL,
    mixed_nopm          double precision,
    mixed_tpm           double precision,
    interference        double precision,
    analytic_s          double precision NOT NULL,
    queries             bigint  NOT NULL,
    query_errors        bigint  NOT NULL,
    query_sets          bigint  NOT NULL,
    query_sets_per_hour double precision,
    freshness_p50_s     double precision,
    freshness_max_s     double precision
);
CREATE TABLE job_mixed_query (
    job_id      bigint  NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    ord         bigint  NOT NULL,
    stream      bigint  NOT NULL,
    query_set   bigint  NOT NULL,
    position    bigint  NOT NULL,
    query       bigint  NOT NULL,
    start_s     double precision NOT NULL, -- on the run's clock, as an interval's elapsed
    end_s       double precision NOT NULL,
    seconds     double precision NOT NULL,
    row_count   bigint  NOT NULL,
    freshness_s double precision,
    error       text    NOT NULL,
    PRIMARY KEY (job_id, ord)
);
-- Each transaction type's latencies over the baseline and the mixed part
-- (part: baseline or mixed), from the parts' intervals' histograms merged.
CREATE TABLE job_mixed_tx (
    job_id bigint NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    part   text   NOT NULL,
    ord    bigint NOT NULL,
    tx     text   NOT NULL,
    count  bigint NOT NULL,
    p50_us bigint NOT NULL,
    p95_us bigint NOT NULL,
    p99_us bigint NOT NULL,
    max_us bigint NOT NULL,
    PRIMARY KEY (job_id, part, ord)
);
