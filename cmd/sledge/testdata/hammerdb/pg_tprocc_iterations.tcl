#!/bin/tclsh
# HammerDB's "test" driver with an iteration count: every virtual user runs
# the same number of transactions, then stops; the script times the run.
set tmpdir $::env(TMP)
dbset db pg
dbset bm TPC-C ;# HammerDB's older name (a TPC trademark), sent as input
diset connection pg_host localhost
diset connection pg_port 5432
diset tpcc pg_user tpcc
diset tpcc pg_pass tpcc
diset tpcc pg_dbase tpcc
diset tpcc pg_driver test
diset tpcc pg_total_iterations 150
vuset vu 2
vucreate
set start [ clock milliseconds ]
set jobid [ vurun ]
puts "ELAPSED [ expr {[ clock milliseconds ] - $start} ] ms"
vudestroy
set of [ open $tmpdir/pg_tprocc_iterations w ]
puts $of $jobid
close $of
puts "ITERATIONS COMPLETE"
