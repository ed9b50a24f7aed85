-- Version 9: runs driven by several agents (sledge processes, on one
-- machine or several), each running a segment of the virtual users, merged
-- into one job; and the histograms of each interval, so that intervals
-- merge exactly and export as an HdrHistogram interval log.

ALTER TABLE job_interval_tx ADD COLUMN histogram BLOB; -- hdrhistogram-go V2 compressed, base64; NULL when none completed

-- A run id names the group; its job is created by the first agent to join.
CREATE TABLE run_group (
    run_id    TEXT    PRIMARY KEY,
    job_id    INTEGER NOT NULL UNIQUE REFERENCES job (id) ON DELETE CASCADE,
    start_at  TEXT,   -- the shared start on the repository's clock; NULL until an agent fixed it
    merged_by TEXT    -- the segment of the agent that merged the results; NULL until claimed
) STRICT;

-- The agents of a group run. Times are on the repository's clock (each
-- agent converts with its measured clock offset).
CREATE TABLE job_agent (
    job_id          INTEGER NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    segment         TEXT    NOT NULL,  -- canonical: I/N or A:B
    host            TEXT    NOT NULL,
    pid             INTEGER NOT NULL,
    first_vu        INTEGER NOT NULL,  -- 0-based global number of its first VU
    vus             INTEGER NOT NULL,
    clock_offset_us INTEGER NOT NULL,  -- its clock minus the repository's
    state           TEXT    NOT NULL,  -- joined | running | done | failed | lost
    joined_at       TEXT    NOT NULL,
    last_seen       TEXT    NOT NULL,
    error           TEXT    NOT NULL DEFAULT '',
    result          TEXT,              -- its own metrics.RunResult as JSON (histograms encoded) once done
    PRIMARY KEY (job_id, segment)
) STRICT;

-- Each agent's intervals, as job_interval*, with the histograms the merge
-- needs.
CREATE TABLE job_agent_interval (
    job_id    INTEGER NOT NULL,
    segment   TEXT    NOT NULL,
    seq       INTEGER NOT NULL,
    phase     TEXT    NOT NULL,
    elapsed_s REAL    NOT NULL,
    length_s  REAL    NOT NULL,
    tpm       REAL,
    nopm      REAL,
    errors    INTEGER NOT NULL,
    PRIMARY KEY (job_id, segment, seq),
    FOREIGN KEY (job_id, segment) REFERENCES job_agent (job_id, segment) ON DELETE CASCADE
) STRICT;

CREATE TABLE job_agent_interval_tx (
    job_id    INTEGER NOT NULL,
    segment   TEXT    NOT NULL,
    seq       INTEGER NOT NULL,
    ord       INTEGER NOT NULL,
    tx        TEXT    NOT NULL,
    count     INTEGER NOT NULL,
    errors    INTEGER NOT NULL,
    histogram BLOB,
    PRIMARY KEY (job_id, segment, seq, tx),
    FOREIGN KEY (job_id, segment, seq) REFERENCES job_agent_interval (job_id, segment, seq) ON DELETE CASCADE
) STRICT;

CREATE TABLE job_agent_interval_vu (
    job_id  INTEGER NOT NULL,
    segment TEXT    NOT NULL,
    seq     INTEGER NOT NULL,
    vu      INTEGER NOT NULL,
    state   TEXT    NOT NULL,
    commits INTEGER NOT NULL,
    errors  INTEGER NOT NULL,
    PRIMARY KEY (job_id, segment, seq, vu),
    FOREIGN KEY (job_id, segment, seq) REFERENCES job_agent_interval (job_id, segment, seq) ON DELETE CASCADE
) STRICT;
