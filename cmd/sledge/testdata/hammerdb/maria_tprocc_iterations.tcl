#!/bin/tclsh
# HammerDB's "test" driver with an iteration count: every virtual user runs
# the same number of transactions, then stops; the script times the run.
set tmpdir $::env(TMP)
dbset db maria
dbset bm TPC-C ;# HammerDB's older name (a TPC trademark), sent as input
diset connection maria_host localhost
diset connection maria_port 3306
diset connection maria_socket /tmp/mariadb.sock
diset tpcc maria_user tpcc
diset tpcc maria_pass tpcc
diset tpcc maria_dbase tpcc
diset tpcc maria_driver test
diset tpcc maria_total_iterations 150
vuset vu 2
vucreate
set start [ clock milliseconds ]
set jobid [ vurun ]
puts "ELAPSED [ expr {[ clock milliseconds ] - $start} ] ms"
vudestroy
set of [ open $tmpdir/maria_tprocc_iterations w ]
puts $of $jobid
close $of
puts "ITERATIONS COMPLETE"
