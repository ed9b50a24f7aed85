-- Locks Sledge takes while it changes what several sledge processes (the
-- agents of one run) may change at once. Session locks: taken and released
-- on one connection.

-- name: procs_lock
-- DROP PROCEDURE and CREATE PROCEDURE from two sessions at once race
-- ("PROCEDURE … already exists"): the agents install the routines one at a
-- time (waiting up to a minute).
SELECT GET_LOCK('sledge tprocc routines', 60);

-- name: procs_unlock
SELECT RELEASE_LOCK('sledge tprocc routines');
