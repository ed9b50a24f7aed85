#!/bin/tclsh
# One run with as many virtual users as the machine has CPUs, in the style of
# HammerDB 6's single-run samples.
set tmpdir $::env(TMP)
puts "SETTING CONFIGURATION"
dbset db pg
dbset bm TPC-C ;# HammerDB's older name (a TPC trademark), sent as input

diset connection pg_host localhost
diset connection pg_port 5432
# The vacuum step after the result checkpoints as the superuser.
diset tpcc pg_superuser postgres
diset tpcc pg_superuserpass postgres
diset tpcc pg_user tpcc
diset tpcc pg_pass tpcc
diset tpcc pg_dbase tpcc
diset tpcc pg_driver timed
diset tpcc pg_rampup 0.01
diset tpcc pg_duration 0.05
diset tpcc pg_timeprofile true
diset tpcc pg_vacuum true ;# checkpoint and vacuum once the result is printed

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
set of [ open $tmpdir/pg_tprocc w ]
puts $of $jobid
close $of
