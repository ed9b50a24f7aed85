// Package pgscript parses and executes pgbench scripts in pgbench's own
// format, with pgbench's semantics and random streams, so that a pgbench
// user's scripts run unchanged and draw the same values for the same seed.
//
// Scope:
//   - Parse reads a script: SQL commands (ended by semicolons, \; for
//     compound commands) and the meta-commands \set (the whole expression
//     language), \sleep, \setshell, \shell, \gset, \aset, \if, \elif,
//     \else, \endif, \startpipeline, \syncpipeline and \endpipeline.
//     Builtin gives tpcb-like, simple-update and select-only.
//   - New derives, from a seed, the random streams pgbench derives (one
//     per client for the script functions, three per thread for the choice
//     of scripts, throttling and sampling) and the predefined variables
//     (:scale, :client_id, :default_seed, :random_seed, -D definitions).
//   - Values follow pgbench: 64-bit integers with overflow errors, doubles
//     printed as "%.15g" (Infinity, NaN), booleans, NULL; exp, ln, pow and
//     the Box-Muller sine are correctly rounded (see libm.go), where Go's
//     math would often be an ulp away from the C library pgbench uses.
//   - Client.Run executes one transaction of a script on a Conn in a query
//     mode (simple, extended, prepared), timing each command, and
//     Client.Rewind replays the draws for a retry.
//
// Pipelines: on a Conn that is a Pipeliner (PgConn, over pgx) the commands
// between \startpipeline and \syncpipeline or \endpipeline go to the
// server as one batch, which runs as one implicit transaction, as in
// pgbench. On any other Conn they run one after the other, each waiting for
// its result (and, outside an explicit BEGIN, each in its own transaction).
//
// What a run does with the outcomes (rates, retries, reports) belongs to
// the workload built on this package.
package pgscript
