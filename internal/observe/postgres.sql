-- What the PostgreSQL observer (postgres.go) asks the server, one named
-- statement per "-- name: X" block. Every statement only reads; the session
-- is read-only besides (default_transaction_read_only). The comment
-- "sledge observe" in each marks the observer's own statements where the
-- server keeps their text (pg_stat_statements), so that they are left out of
-- the statements the observer reports.
--
-- Statistics statements (the stats_* ones) share one shape: a row key
-- (text, '' for a view of one row), the view's stats_reset as text ('' when
-- none), then one float8 column per counter, named as the counter is
-- reported. {{schema}} is replaced with the extension's schema.

-- name: server
SELECT /* sledge observe */ current_setting('server_version'),
       current_setting('server_version_num')::int,
       extract(epoch FROM now() - pg_postmaster_start_time())::float8,
       current_database(), current_user::text

-- name: role
-- Whether the role sees the activity of other roles' sessions: superusers,
-- pg_read_all_stats and pg_monitor (which includes it) do.
SELECT /* sledge observe */ coalesce((SELECT rolsuper FROM pg_roles WHERE rolname = current_user), false)
       OR pg_has_role(current_user, 'pg_read_all_stats', 'USAGE')

-- name: settings
-- Settings not at their defaults, but for those that describe the client's
-- session rather than the server (the observer's own connection sets them).
SELECT /* sledge observe */ name, current_setting(name), source
  FROM pg_settings
 WHERE source NOT IN ('default', 'client', 'session', 'interactive', 'test')
   AND name NOT IN ('application_name', 'client_encoding', 'DateStyle', 'IntervalStyle',
                    'TimeZone', 'log_timezone', 'search_path', 'server_encoding',
                    'config_file', 'data_directory', 'hba_file', 'ident_file')
   AND name NOT LIKE 'lc\_%'
   AND name NOT LIKE 'transaction\_%'
 ORDER BY lower(name)

-- name: extensions
SELECT /* sledge observe */ e.extname::text, n.nspname::text
  FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
 WHERE e.extname IN ('pg_wait_sampling', 'pg_stat_statements')

-- name: compute_query_id
SELECT /* sledge observe */ coalesce(current_setting('compute_query_id', true), '')

-- name: wait_sampling_probe
-- Fails when the extension is created but its library is not loaded
-- (shared_preload_libraries).
SELECT /* sledge observe */ coalesce(current_setting('pg_wait_sampling.profile_period', true), '10')::float8,
       (SELECT count(*) FROM {{schema}}.pg_wait_sampling_profile)

-- name: statements_probe
SELECT /* sledge observe */ count(*) FROM {{schema}}.pg_stat_statements(false)

-- name: statements_time_column
-- total_exec_time since pg_stat_statements 1.8 (PostgreSQL 13), total_time before.
SELECT /* sledge observe */ attname::text FROM pg_attribute
 WHERE attrelid = '{{schema}}.pg_stat_statements'::regclass
   AND attname IN ('total_exec_time', 'total_time') AND NOT attisdropped

-- name: activity
-- One sample: the database's active sessions but the observer's own, with
-- their application_name (the kind of session: a mixed run's analytic
-- streams name theirs). PostgreSQL 14 and later give the statement's id
-- (when compute_query_id computes one).
SELECT /* sledge observe */ coalesce(wait_event_type, 'CPU'), coalesce(wait_event, ''),
       query_id, left(query, 512), coalesce(application_name, '')
  FROM pg_stat_activity
 WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid()

-- name: activity_13
SELECT /* sledge observe */ coalesce(wait_event_type, 'CPU'), coalesce(wait_event, ''),
       NULL::int8, left(query, 512), coalesce(application_name, '')
  FROM pg_stat_activity
 WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid()

-- name: stats_database
SELECT /* sledge observe */ '' AS key, coalesce(stats_reset::text, ''),
       xact_commit::float8 AS xact_commit, xact_rollback::float8 AS xact_rollback,
       blks_read::float8 AS blks_read, blks_hit::float8 AS blks_hit,
       tup_returned::float8 AS tup_returned, tup_fetched::float8 AS tup_fetched,
       tup_inserted::float8 AS tup_inserted, tup_updated::float8 AS tup_updated,
       tup_deleted::float8 AS tup_deleted,
       temp_files::float8 AS temp_files, temp_bytes::float8 AS temp_bytes,
       deadlocks::float8 AS deadlocks,
       blk_read_time::float8 AS blk_read_time, blk_write_time::float8 AS blk_write_time
  FROM pg_stat_database
 WHERE datname = $1

-- name: stats_bgwriter
-- Up to PostgreSQL 16 the background writer's view holds the checkpointer's
-- figures too.
SELECT /* sledge observe */ '' AS key, coalesce(stats_reset::text, ''),
       checkpoints_timed::float8 AS checkpoints_timed, checkpoints_req::float8 AS checkpoints_req,
       checkpoint_write_time::float8 AS checkpoint_write_time,
       checkpoint_sync_time::float8 AS checkpoint_sync_time,
       buffers_checkpoint::float8 AS buffers_checkpoint, buffers_clean::float8 AS buffers_clean,
       buffers_backend::float8 AS buffers_backend, maxwritten_clean::float8 AS maxwritten_clean
  FROM pg_stat_bgwriter

-- name: stats_bgwriter_17
-- PostgreSQL 17 moved the checkpointer's figures to pg_stat_checkpointer
-- and the backends' writes to pg_stat_io.
SELECT /* sledge observe */ '' AS key, coalesce(stats_reset::text, ''),
       buffers_clean::float8 AS buffers_clean, maxwritten_clean::float8 AS maxwritten_clean
  FROM pg_stat_bgwriter

-- name: stats_checkpointer
SELECT /* sledge observe */ '' AS key, coalesce(stats_reset::text, ''),
       num_timed::float8 AS num_timed, num_requested::float8 AS num_requested,
       write_time::float8 AS write_time, sync_time::float8 AS sync_time,
       buffers_written::float8 AS buffers_written
  FROM pg_stat_checkpointer

-- name: stats_wal
-- PostgreSQL 14 to 17.
SELECT /* sledge observe */ '' AS key, coalesce(stats_reset::text, ''),
       wal_records::float8 AS wal_records, wal_fpi::float8 AS wal_fpi,
       wal_bytes::float8 AS wal_bytes, wal_buffers_full::float8 AS wal_buffers_full,
       wal_write::float8 AS wal_write, wal_sync::float8 AS wal_sync
  FROM pg_stat_wal

-- name: stats_wal_18
-- PostgreSQL 18 moved WAL writes and syncs to pg_stat_io.
SELECT /* sledge observe */ '' AS key, coalesce(stats_reset::text, ''),
       wal_records::float8 AS wal_records, wal_fpi::float8 AS wal_fpi,
       wal_bytes::float8 AS wal_bytes, wal_buffers_full::float8 AS wal_buffers_full
  FROM pg_stat_wal

-- name: stats_io
-- PostgreSQL 16 and later: operations by kind of process, summed over
-- objects and contexts.
SELECT /* sledge observe */ backend_type AS key, coalesce(max(stats_reset)::text, ''),
       coalesce(sum(reads), 0)::float8 AS reads, coalesce(sum(writes), 0)::float8 AS writes,
       coalesce(sum(extends), 0)::float8 AS extends
  FROM pg_stat_io
 GROUP BY backend_type

-- name: stats_wait_sampling
-- The server-wide wait profile of pg_wait_sampling (all databases, all
-- processes), summed over processes and statements.
SELECT /* sledge observe */ coalesce(event_type, 'CPU') || ':' || coalesce(event, '') AS key, '',
       sum(count)::float8 AS samples
  FROM {{schema}}.pg_wait_sampling_profile
 GROUP BY 1

-- name: statements
-- Cumulative time and calls of the database's statements, without their
-- text (reading the texts costs a file read on the server).
SELECT /* sledge observe */ queryid, sum(calls)::int8, sum({{time}})::float8
  FROM {{schema}}.pg_stat_statements(false)
 WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1) AND queryid IS NOT NULL
 GROUP BY queryid

-- name: statement_texts
SELECT /* sledge observe */ queryid, min(left(query, 1000))
  FROM {{schema}}.pg_stat_statements(true)
 WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1) AND queryid = ANY($2::int8[])
 GROUP BY queryid
