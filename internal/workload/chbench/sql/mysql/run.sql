-- The mixed run's statements whose MariaDB and MySQL text differs from
-- the base, ../run.sql.

-- name: freshness
-- differs: no EXTRACT(EPOCH …) of an interval: TIMESTAMPDIFF in microseconds (O_ENTRY_D is a DATETIME: whole seconds)
SELECT CAST(TIMESTAMPDIFF(MICROSECOND, max(o_entry_d), NOW(6)) / 1000000 AS DOUBLE)
FROM district JOIN orders ON o_w_id = d_w_id AND o_d_id = d_id AND o_id = d_next_o_id - 1
