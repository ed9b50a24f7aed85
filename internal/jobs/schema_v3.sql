-- Version 3: TPROC-H results. One row per run, one per query execution and
-- one per refresh function execution.

CREATE TABLE job_tproch_result (
    job_id       INTEGER PRIMARY KEY REFERENCES job (id) ON DELETE CASCADE,
    status       TEXT    NOT NULL,
    scale_factor REAL    NOT NULL,
    streams      INTEGER NOT NULL,
    query_sets   INTEGER NOT NULL,
    seed         INTEGER NOT NULL,
    refresh      INTEGER NOT NULL, -- 0/1
    validation   INTEGER NOT NULL, -- 0/1: validation parameters
    validated    TEXT    NOT NULL DEFAULT '', -- passed | failed | '' (not checked)
    power_s      REAL    NOT NULL, -- wall time of the power test
    throughput_s REAL    NOT NULL,
    ts_s         REAL,             -- NULL: no throughput test
    geomean_s    REAL,             -- NULL: not every power query succeeded
    power        REAL,
    throughput   REAL,
    composite    REAL,
    warnings     TEXT    NOT NULL DEFAULT ''
) STRICT;

CREATE TABLE job_tproch_query (
    job_id   INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    ord      INTEGER NOT NULL, -- execution order as recorded
    stream   INTEGER NOT NULL,
    position INTEGER NOT NULL,
    qset     INTEGER NOT NULL,
    query    INTEGER NOT NULL,
    seconds  REAL    NOT NULL,
    rows     INTEGER NOT NULL,
    error    TEXT,             -- NULL when it succeeded
    answer_check TEXT NOT NULL DEFAULT '', -- ok | what differed | '' (not checked)
    PRIMARY KEY (job_id, ord)
) STRICT;

CREATE TABLE job_tproch_refresh (
    job_id   INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    ord      INTEGER NOT NULL,
    stream   INTEGER NOT NULL,
    set_no   INTEGER NOT NULL,
    function TEXT    NOT NULL, -- RF1 | RF2
    seconds  REAL    NOT NULL,
    rows     INTEGER NOT NULL,
    error    TEXT,
    PRIMARY KEY (job_id, ord)
) STRICT;
