-- Locks Sledge takes while it changes what several sledge processes (the
-- agents of one run) may change at once. Session locks: taken and released
-- on one connection.

-- name: procs_lock
-- CREATE OR REPLACE FUNCTION from two sessions at once fails ("tuple
-- concurrently updated"): the agents install the routines one at a time.
SELECT 1 FROM (SELECT pg_advisory_lock(hashtext('sledge tprocc routines'))) AS locked;

-- name: procs_unlock
SELECT pg_advisory_unlock(hashtext('sledge tprocc routines'));
