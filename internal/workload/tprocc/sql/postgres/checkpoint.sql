-- Between the trials of a series (--between checkpoint): every dirty page
-- of the server written out, so the next trial does not pay for the last
-- one's writes (internal/workload RunMaintenance).

-- name: checkpoint
-- needs: a superuser or, from PostgreSQL 15, a role granted pg_checkpoint (GRANT pg_checkpoint TO the benchmark's user)
CHECKPOINT;
