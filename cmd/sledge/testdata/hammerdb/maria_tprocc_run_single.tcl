#!/bin/tclsh
# One run with as many virtual users as the machine has CPUs, in the style of
# HammerDB 6's single-run samples.
set tmpdir $::env(TMP)
puts "SETTING CONFIGURATION"
dbset db maria
dbset bm TPC-C ;# HammerDB's older name (a TPC trademark), sent as input

diset connection maria_host localhost
diset connection maria_port 3306
diset connection maria_socket /tmp/mariadb.sock
diset tpcc maria_user tpcc
diset tpcc maria_pass tpcc
diset tpcc maria_dbase tpcc
diset tpcc maria_driver timed
diset tpcc maria_rampup 0.01
diset tpcc maria_duration 0.05
diset tpcc maria_timeprofile true
diset tpcc maria_purge true ;# wait for the purge of the run's undo once the result is printed

loadscript
puts "TEST STARTED"
vuset vu vcpu
vucreate
tcstart
tcstatus
set jobid [ vurun ]
vudestroy
tcstop
puts "TEST COMPLETE"
set of [ open $tmpdir/maria_tprocc w ]
puts $of $jobid
close $of
