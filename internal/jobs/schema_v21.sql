-- Version 21: each analytic query's latencies in a mixed run as an HDR
-- histogram (microseconds, three significant digits, over its completed
-- executions kept), so that its percentiles are read from a histogram
-- that merges exactly, as the transactions' are. A job recorded before
-- has none: its per-query figures are derived from job_mixed_query.
CREATE TABLE job_mixed_query_hist (
    job_id    INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    query     INTEGER NOT NULL, -- 1 … 22
    count     INTEGER NOT NULL, -- completed executions (the histogram's count)
    histogram BLOB    NOT NULL, -- hdrhistogram-go V2 compressed, base64
    PRIMARY KEY (job_id, query)
) STRICT;
