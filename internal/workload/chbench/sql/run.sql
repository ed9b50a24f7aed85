-- The statements of a mixed run's analytic streams besides the 22 queries
-- (queries.sql). Written as PostgreSQL runs them; sql/<dialect>/run.sql
-- replaces those whose text differs.

-- name: freshness
-- overridden: mysql (TIMESTAMPDIFF), sqlite (julianday)
-- The age in seconds, by the database's clock, of the newest order a
-- query starting now can read: each district's newest order is
-- d_next_o_id - 1 (TPROC-C's New-Order stamps O_ENTRY_D with the
-- database's now()), found through the primary keys, not by a scan.
SELECT CAST(EXTRACT(EPOCH FROM (LOCALTIMESTAMP - max(o_entry_d))) AS double precision)
FROM district JOIN orders ON o_w_id = d_w_id AND o_d_id = d_id AND o_id = d_next_o_id - 1
