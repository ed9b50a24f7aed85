-- Schema version 1 of the Sledge jobs repository.
--
-- Every table is STRICT so a value of the wrong type is refused instead of
-- silently stored as text. Times are UTC text in a fixed-width RFC 3339 form
-- (readable in the sqlite3 shell, sortable as text). Durations are REAL
-- seconds (*_s) or microseconds (*_us); booleans are INTEGER 0/1. Rates and
-- other measured REALs may be NULL: SQLite stores NaN (e.g. a rate over an
-- empty window) as NULL, and refusing it would lose the whole result.
-- Child rows go with their job (ON DELETE CASCADE, and Repo.Delete also
-- deletes them explicitly in case a connection runs without foreign keys).

CREATE TABLE job (
    id         INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused, so ids stay unique after deletes
    kind       TEXT    NOT NULL,                  -- build | run | check | drop
    workload   TEXT    NOT NULL DEFAULT '',
    db_kind    TEXT    NOT NULL DEFAULT '',
    target     TEXT    NOT NULL DEFAULT '',       -- redacted: never a password
    db_version TEXT    NOT NULL DEFAULT '',
    status     TEXT    NOT NULL,                  -- running | completed | interrupted | failed | abandoned
    created_at TEXT    NOT NULL,
    started_at TEXT    NOT NULL,
    ended_at   TEXT,                              -- NULL while running
    host       TEXT    NOT NULL DEFAULT '',
    pid        INTEGER NOT NULL DEFAULT 0,
    error      TEXT    NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX job_by_status ON job (status);
CREATE INDEX job_by_kind ON job (kind);

CREATE TABLE job_config (
    job_id INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    key    TEXT    NOT NULL,
    value  TEXT    NOT NULL,
    PRIMARY KEY (job_id, key)
) STRICT, WITHOUT ROWID;

CREATE TABLE job_system (
    job_id INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    key    TEXT    NOT NULL,
    value  TEXT    NOT NULL,
    PRIMARY KEY (job_id, key)
) STRICT, WITHOUT ROWID;

CREATE TABLE job_output (
    job_id INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    seq    INTEGER NOT NULL, -- 1, 2, … per job
    at     TEXT    NOT NULL,
    line   TEXT    NOT NULL,
    PRIMARY KEY (job_id, seq)
) STRICT;

-- One row per run: the scalar fields of metrics.RunResult.
CREATE TABLE job_result (
    job_id               INTEGER PRIMARY KEY REFERENCES job (id) ON DELETE CASCADE,
    status               TEXT    NOT NULL,
    vus                  INTEGER NOT NULL,
    warehouses           INTEGER NOT NULL,
    mode                 TEXT    NOT NULL,
    isolation            TEXT    NOT NULL,
    rampup_s             REAL    NOT NULL, -- configured
    duration_s           REAL    NOT NULL, -- configured
    measured_s           REAL    NOT NULL, -- the actual measured window
    nopm                 REAL,
    tpm                  REAL,
    new_orders           INTEGER NOT NULL,
    commits              INTEGER NOT NULL,
    errors               INTEGER NOT NULL,
    rolled_back          INTEGER NOT NULL,
    db_new_orders        INTEGER NOT NULL,
    nopm_db_check        REAL,
    db_check_agree       INTEGER NOT NULL CHECK (db_check_agree IN (0, 1)),
    server_tpm           REAL, -- negative when not available
    client_cpu_s         REAL    NOT NULL,
    client_cpu_per_tx_us REAL,
    warnings             TEXT    NOT NULL DEFAULT '' -- one warning per line
) STRICT;

CREATE TABLE job_timing (
    job_id      INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    ord         INTEGER NOT NULL, -- position in RunResult.Tx
    tx          TEXT    NOT NULL,
    count       INTEGER NOT NULL,
    rolled_back INTEGER NOT NULL,
    retries     INTEGER NOT NULL,
    mean_us     REAL    NOT NULL,
    p50_us      REAL    NOT NULL,
    p95_us      REAL    NOT NULL,
    p99_us      REAL    NOT NULL,
    max_us      REAL    NOT NULL,
    histogram   BLOB,             -- hdrhistogram-go V2 compressed, base64
    PRIMARY KEY (job_id, tx)
) STRICT;

CREATE TABLE job_error (
    job_id INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    tx     TEXT    NOT NULL,
    class  TEXT    NOT NULL,
    count  INTEGER NOT NULL,
    PRIMARY KEY (job_id, tx, class)
) STRICT, WITHOUT ROWID;

CREATE TABLE job_interval (
    job_id    INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,
    phase     TEXT    NOT NULL, -- rampup | measure
    elapsed_s REAL    NOT NULL, -- end of the interval, since the run started
    length_s  REAL    NOT NULL,
    tpm       REAL,
    nopm      REAL,
    errors    INTEGER NOT NULL,
    PRIMARY KEY (job_id, seq)
) STRICT;

CREATE TABLE job_interval_tx (
    job_id INTEGER NOT NULL,
    seq    INTEGER NOT NULL,
    ord    INTEGER NOT NULL, -- position in Interval.Tx
    tx     TEXT    NOT NULL,
    count  INTEGER NOT NULL,
    errors INTEGER NOT NULL,
    p50_us REAL    NOT NULL,
    p95_us REAL    NOT NULL,
    p99_us REAL    NOT NULL,
    max_us REAL    NOT NULL,
    PRIMARY KEY (job_id, seq, tx),
    FOREIGN KEY (job_id, seq) REFERENCES job_interval (job_id, seq) ON DELETE CASCADE
) STRICT;

CREATE TABLE job_audit (
    job_id INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    ord    INTEGER NOT NULL,
    name   TEXT    NOT NULL,
    value  REAL,
    unit   TEXT    NOT NULL,
    target TEXT    NOT NULL,
    ok     INTEGER NOT NULL CHECK (ok IN (0, 1)),
    PRIMARY KEY (job_id, ord)
) STRICT;

CREATE TABLE job_build (
    job_id     INTEGER PRIMARY KEY REFERENCES job (id) ON DELETE CASCADE,
    warehouses INTEGER NOT NULL,
    workers    INTEGER NOT NULL,
    rows       INTEGER NOT NULL,
    seconds    REAL,
    rows_per_s REAL
) STRICT;

CREATE TABLE job_build_table (
    job_id     INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    table_name TEXT    NOT NULL,
    rows       INTEGER NOT NULL,
    PRIMARY KEY (job_id, table_name)
) STRICT, WITHOUT ROWID;

CREATE TABLE job_check (
    job_id      INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    ord         INTEGER NOT NULL,
    name        TEXT    NOT NULL,
    description TEXT    NOT NULL,
    passed      INTEGER NOT NULL CHECK (passed IN (0, 1)),
    violations  INTEGER NOT NULL,
    skipped     INTEGER NOT NULL CHECK (skipped IN (0, 1)),
    note        TEXT    NOT NULL,
    PRIMARY KEY (job_id, ord)
) STRICT;
