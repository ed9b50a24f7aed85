-- The mixed run's statements whose SQLite text differs from the base,
-- ../run.sql.

-- name: freshness
-- differs: dates are text: julianday() differences in days (O_ENTRY_D is datetime('now'): whole seconds, UTC)
SELECT (julianday('now') - julianday(max(o_entry_d))) * 86400.0
FROM district JOIN orders ON o_w_id = d_w_id AND o_d_id = d_id AND o_id = d_next_o_id - 1
