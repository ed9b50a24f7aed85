-- Version 9: runs driven by several agents (sledge processes, on one
-- machine or several), each running a segment of the virtual users, merged
-- into one job; and the histograms of each interval, so that intervals
-- merge exactly and export as an HdrHistogram interval log.

ALTER TABLE job_interval_tx ADD COLUMN histogram bytea; -- hdrhistogram-go V2 compressed, base64; NULL when none completed

-- A run id names the group; its job is created by the first agent to join.
CREATE TABLE run_group (
    run_id    text    PRIMARY KEY,
    job_id    bigint NOT NULL UNIQUE REFERENCES job (id) ON DELETE CASCADE,
    start_at  text,   -- the shared start on the repository's clock; NULL until an agent fixed it
    merged_by text    -- the segment of the agent that merged the results; NULL until claimed
);

-- The agents of a group run. Times are on the repository's clock (each
-- agent converts with its measured clock offset).
CREATE TABLE job_agent (
    job_id          bigint NOT NULL REFERENCES job (id) ON DELETE CASCADE,
    segment         text    NOT NULL,  -- canonical: I/N or A:B
    host            text    NOT NULL,
    pid             bigint NOT NULL,
    first_vu        bigint NOT NULL,  -- 0-based global number of its first VU
    vus             bigint NOT NULL,
    clock_offset_us bigint NOT NULL,  -- its clock minus the repository's
    state           text    NOT NULL,  -- joined | running | done | failed | lost
    joined_at       text    NOT NULL,
    last_seen       text    NOT NULL,
    error           text    NOT NULL DEFAULT '',
    result          text,              -- its own metrics.RunResult as JSON (histograms encoded) once done
    PRIMARY KEY (job_id, segment)
);

-- Each agent's intervals, as job_interval*, with the histograms the merge
-- needs.
CREATE TABLE job_agent_interval (
    job_id    bigint NOT NULL,
    segment   text    NOT NULL,
    seq       bigint NOT NULL,
    phase     text    NOT NULL,
    elapsed_s double precision    NOT NULL,
    length_s  double precision    NOT NULL,
    tpm       double precision,
    nopm      double precision,
    errors    bigint NOT NULL,
    PRIMARY KEY (job_id, segment, seq),
    FOREIGN KEY (job_id, segment) REFERENCES job_agent (job_id, segment) ON DELETE CASCADE
);

CREATE TABLE job_agent_interval_tx (
    job_id    bigint NOT NULL,
    segment   text    NOT NULL,
    seq       bigint NOT NULL,
    ord       bigint NOT NULL,
    tx        text    NOT NULL,
    count     bigint NOT NULL,
    errors    bigint NOT NULL,
    histogram bytea,
    PRIMARY KEY (job_id, segment, seq, tx),
    FOREIGN KEY (job_id, segment, seq) REFERENCES job_agent_interval (job_id, segment, seq) ON DELETE CASCADE
);

CREATE TABLE job_agent_interval_vu (
    job_id  bigint NOT NULL,
    segment text    NOT NULL,
    seq     bigint NOT NULL,
    vu      bigint NOT NULL,
    state   text    NOT NULL,
    commits bigint NOT NULL,
    errors  bigint NOT NULL,
    PRIMARY KEY (job_id, segment, seq, vu),
    FOREIGN KEY (job_id, segment, seq) REFERENCES job_agent_interval (job_id, segment, seq) ON DELETE CASCADE
);
