-- Version 5: numbers that stay true under faults.
--
-- A value that could not be measured is NULL, with the reason, never 0: the
-- database cross-check (db_new_orders, nopm_db_check, db_check_agree,
-- db_check_allowance; why absent in db_check_unavailable) and the server's
-- TPM (server_tpm; why absent in server_tpm_unavailable). SQLite cannot drop
-- NOT NULL from a column, so job_result is rebuilt. In results stored
-- before, a check that was not made reads 0 New-Orders that "disagree", and a
-- server TPM that was not available is negative: both become NULL.
--
-- A run's disruption account (metrics.Disruption) is stored in typed tables:
-- its window, outages and what they lost, each virtual user's lost sessions,
-- the measured intervals without a commit, and the monitor's probes that
-- could not be read. A job with an outage in its window ends with the new
-- status 'degraded'.

CREATE TABLE job_result_v5 (
    job_id                 INTEGER PRIMARY KEY REFERENCES job (id) ON DELETE CASCADE,
    status                 TEXT    NOT NULL,
    vus                    INTEGER NOT NULL,
    warehouses             INTEGER NOT NULL,
    mode                   TEXT    NOT NULL,
    isolation              TEXT    NOT NULL,
    rampup_s               REAL    NOT NULL, -- configured
    duration_s             REAL    NOT NULL, -- configured
    measured_s             REAL    NOT NULL, -- the actual measured window
    nopm                   REAL,
    tpm                    REAL,
    new_orders             INTEGER NOT NULL,
    commits                INTEGER NOT NULL,
    errors                 INTEGER NOT NULL,
    rolled_back            INTEGER NOT NULL,
    db_new_orders          INTEGER,          -- NULL: no cross-check (see db_check_unavailable)
    nopm_db_check          REAL,
    db_check_agree         INTEGER CHECK (db_check_agree IN (0, 1)),
    server_tpm             REAL,             -- NULL: not available (see server_tpm_unavailable)
    client_cpu_s           REAL    NOT NULL,
    client_cpu_per_tx_us   REAL,
    warnings               TEXT    NOT NULL DEFAULT '', -- one warning per line
    db_check_allowance     INTEGER,
    db_check_unavailable   TEXT    NOT NULL DEFAULT '', -- why there is no cross-check
    server_tpm_unavailable TEXT    NOT NULL DEFAULT '', -- why there is no server TPM
    CHECK ((db_new_orders IS NULL) = (db_check_agree IS NULL))
) STRICT;

INSERT INTO job_result_v5 (job_id, status, vus, warehouses, mode, isolation, rampup_s, duration_s, measured_s,
    nopm, tpm, new_orders, commits, errors, rolled_back, db_new_orders, nopm_db_check, db_check_agree,
    server_tpm, client_cpu_s, client_cpu_per_tx_us, warnings, db_check_allowance, db_check_unavailable,
    server_tpm_unavailable)
SELECT job_id, status, vus, warehouses, mode, isolation, rampup_s, duration_s, measured_s,
    nopm, tpm, new_orders, commits, errors, rolled_back,
    CASE WHEN db_new_orders = 0 AND db_check_agree = 0 THEN NULL ELSE db_new_orders END,
    CASE WHEN db_new_orders = 0 AND db_check_agree = 0 THEN NULL ELSE nopm_db_check END,
    CASE WHEN db_new_orders = 0 AND db_check_agree = 0 THEN NULL ELSE db_check_agree END,
    CASE WHEN server_tpm < 0 THEN NULL ELSE server_tpm END,
    client_cpu_s, client_cpu_per_tx_us, warnings,
    NULL,
    CASE WHEN db_new_orders = 0 AND db_check_agree = 0 THEN 'not measured (stored by an earlier Sledge)' ELSE '' END,
    CASE WHEN server_tpm IS NULL OR server_tpm < 0 THEN 'not available (stored by an earlier Sledge)' ELSE '' END
FROM job_result;

DROP TABLE job_result;
ALTER TABLE job_result_v5 RENAME TO job_result;

-- One row per run with a disruption account: where the measured window lies
-- on the run's clock (seconds since the run started, as every *_s below).
CREATE TABLE job_disruption (
    job_id         INTEGER PRIMARY KEY REFERENCES job (id) ON DELETE CASCADE,
    window_start_s REAL NOT NULL,
    window_end_s   REAL NOT NULL -- 0: the run ended before its window opened
) STRICT;

-- Each outage: from the first connection error to the first commit after
-- every virtual user that lost its session had a new one.
CREATE TABLE job_outage (
    job_id     INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    ord        INTEGER NOT NULL,
    start_s    REAL    NOT NULL, -- the first connection error
    all_back_s REAL,             -- every VU had a session again; NULL: not by the run's end
    resumed_s  REAL,             -- the first commit after that; NULL: not recovered
    vus        INTEGER NOT NULL, -- virtual users that lost their session
    PRIMARY KEY (job_id, ord)
) STRICT;

-- Transactions that failed during an outage, by error class.
CREATE TABLE job_outage_lost (
    job_id INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    ord    INTEGER NOT NULL, -- job_outage.ord
    class  TEXT    NOT NULL,
    count  INTEGER NOT NULL,
    PRIMARY KEY (job_id, ord, class)
) STRICT, WITHOUT ROWID;

-- Every loss of a virtual user's session.
CREATE TABLE job_connection_event (
    job_id         INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    ord            INTEGER NOT NULL,
    vu             INTEGER NOT NULL, -- 1-based
    lost_s         REAL    NOT NULL,
    reconnected_s  REAL,             -- NULL: still without a session when the run stopped
    attempts       INTEGER NOT NULL, -- reconnect attempts, the successful one included
    PRIMARY KEY (job_id, ord)
) STRICT;

-- Measured intervals in which nothing committed (seq is job_interval.seq).
CREATE TABLE job_idle_interval (
    job_id  INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,
    start_s REAL    NOT NULL,
    end_s   REAL    NOT NULL,
    PRIMARY KEY (job_id, seq)
) STRICT;

-- Window-edge probes of the database's counters that could not be read.
CREATE TABLE job_monitor_gap (
    job_id INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    ord    INTEGER NOT NULL,
    edge   TEXT    NOT NULL, -- window start | window end
    at_s   REAL    NOT NULL,
    error  TEXT    NOT NULL,
    PRIMARY KEY (job_id, ord)
) STRICT;
