-- v8: what the observers (internal/observe) saw during a run: the database
-- server's sessions and statistics and the hosts' operating system, cut at
-- every monitor interval of the run so that they line up with job_interval
-- by seq. Numbers are kept in numeric columns, one row per figure, so that
-- they can be queried and charted in SQL. Every table's primary key starts
-- with job_id, which serves the per-job reads and Delete: no separate index.
-- The children refer to the job, not to job_observer: an observer's
-- intervals stay readable even when its start could not be stored.

-- One observer of a job (idx 0, 1, … in the order the run started them),
-- what it found at the start and, once the run ended, its own cost.
CREATE TABLE job_observer (
    job_id       INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    idx          INTEGER NOT NULL,
    name         TEXT    NOT NULL, -- e.g. "PostgreSQL sessions and statistics", "client host"
    server       TEXT    NOT NULL, -- product and version, "" for a host
    uptime_s     REAL    NOT NULL,
    samples      INTEGER NOT NULL DEFAULT 0,
    queries      INTEGER NOT NULL DEFAULT 0,
    query_s      REAL    NOT NULL DEFAULT 0, -- wall time spent waiting for its queries' answers
    reconnects   INTEGER NOT NULL DEFAULT 0,
    server_share REAL    NOT NULL DEFAULT 0, -- share of one server CPU (0..1), 0 when unknown
    PRIMARY KEY (job_id, idx)
) STRICT;

CREATE TABLE job_observer_note (
    job_id INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    idx    INTEGER NOT NULL,
    n      INTEGER NOT NULL,
    note   TEXT    NOT NULL,
    PRIMARY KEY (job_id, idx, n)
) STRICT;

-- The server settings in force when the job started.
CREATE TABLE job_setting (
    job_id INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    idx    INTEGER NOT NULL,
    ord    INTEGER NOT NULL,
    name   TEXT    NOT NULL,
    value  TEXT    NOT NULL, -- as the server shows it, with its unit
    source TEXT    NOT NULL, -- "" when unknown
    PRIMARY KEY (job_id, idx, ord)
) STRICT;

-- One observer's interval seq of the run.
CREATE TABLE job_observed (
    job_id    INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    idx       INTEGER NOT NULL,
    seq       INTEGER NOT NULL, -- job_interval.seq
    elapsed_s REAL    NOT NULL,
    length_s  REAL    NOT NULL,
    samples   INTEGER NOT NULL,
    gap       TEXT    NOT NULL, -- why part of it was not observed; "" when whole
    PRIMARY KEY (job_id, idx, seq)
) STRICT;

-- Average active sessions by wait class and event; class CPU has event "".
CREATE TABLE job_wait (
    job_id INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    idx    INTEGER NOT NULL,
    seq    INTEGER NOT NULL,
    ord    INTEGER NOT NULL,
    class  TEXT    NOT NULL,
    event  TEXT    NOT NULL,
    aas    REAL    NOT NULL,
    PRIMARY KEY (job_id, idx, seq, ord)
) STRICT;

CREATE TABLE job_statement (
    job_id  INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    idx     INTEGER NOT NULL,
    seq     INTEGER NOT NULL,
    ord     INTEGER NOT NULL,
    stmt_id TEXT    NOT NULL, -- query_id or digest, "" when none
    text    TEXT    NOT NULL,
    aas     REAL    NOT NULL,
    seconds REAL    NOT NULL, -- 0 without statement statistics
    calls   INTEGER NOT NULL,
    PRIMARY KEY (job_id, idx, seq, ord)
) STRICT;

-- A counter's change over the interval (delta) or a gauge's value at its
-- end. NULL is a value that could not be measured.
CREATE TABLE job_counter (
    job_id INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    idx    INTEGER NOT NULL,
    seq    INTEGER NOT NULL,
    ord    INTEGER NOT NULL,
    source TEXT    NOT NULL, -- e.g. pg_stat_database, global_status, os.cpu
    name   TEXT    NOT NULL,
    kind   TEXT    NOT NULL CHECK (kind IN ('delta', 'gauge')),
    unit   TEXT    NOT NULL,
    value  REAL,
    PRIMARY KEY (job_id, idx, seq, ord)
) STRICT;
